import OpenAI from 'openai';

export interface OpenAiEndpoint {
  apiKey: string | undefined;
  baseUrl: string | undefined;
}

const clients = new Map<string, OpenAI>();

/**
 * One client per endpoint, shared (keep-alive connections). Retries are off: Parley answers a
 * live user and reports failures itself instead of stretching a turn.
 */
export function openAiClient(endpoint: OpenAiEndpoint): OpenAI {
  const key = `${endpoint.baseUrl ?? ''}\u0000${endpoint.apiKey ?? ''}`;
  let client = clients.get(key);
  if (client === undefined) {
    client = new OpenAI({
      apiKey: endpoint.apiKey ?? 'not-set',
      baseURL: endpoint.baseUrl,
      maxRetries: 0,
    });
    clients.set(key, client);
  }
  return client;
}
