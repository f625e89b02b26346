import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import { ProviderError, ProviderNotConfigured } from '../provider-error.js';

/**
 * An OpenAI SDK failure as a ProviderError that says what happened (HTTP status and the server's
 * message, timeout, unreachable server). Aborts by the caller's signal are passed through as they
 * are, so callers can tell "stopped on purpose" from "failed"; anything else (an answer the SDK could
 * not parse) is a ProviderError too.
 */
export function openAiFailure(what: string, err: unknown, signal: AbortSignal | undefined): unknown {
  if (signal?.aborted || err instanceof APIUserAbortError) return signal?.reason ?? err;
  if (err instanceof APIConnectionTimeoutError) return new ProviderError('openai', `${what} timed out`, { cause: err });
  if (err instanceof APIConnectionError) {
    const cause = err.cause instanceof Error ? `: ${err.cause.message}` : '';
    return new ProviderError('openai', `${what} failed: could not reach the server${cause}`, { cause: err });
  }
  if (err instanceof APIError) {
    const detail = err.error !== undefined && err.error !== null ? upstreamMessage(err.error) : null;
    return new ProviderError(
      'openai',
      `${what} failed: HTTP ${err.status ?? '?'}${detail === null ? '' : ` (${detail})`}`,
      {
        cause: err,
      },
    );
  }
  // Not the SDK's own kind: a 200 whose body it could not parse (truncated or garbage JSON), a broken stream.
  if (err instanceof ProviderError) return err;
  const detail = err instanceof Error ? err.message : String(err);
  return new ProviderError(
    'openai',
    `${what} failed: the server's answer could not be read (${detail.slice(0, 200)})`,
    {
      cause: err,
    },
  );
}

function upstreamMessage(body: unknown): string | null {
  if (typeof body === 'string') return body.slice(0, 200);
  if (typeof body === 'object' && body !== null && 'message' in body && typeof body.message === 'string') {
    return body.message.slice(0, 200);
  }
  return null;
}

/** Fails fast, with the fix, when neither an API key nor a server is configured. */
export function assertConfigured(endpoint: { apiKey: string | undefined; baseUrl: string | undefined }): void {
  if (endpoint.apiKey === undefined && endpoint.baseUrl === undefined) {
    throw new ProviderNotConfigured(
      'openai',
      'not configured: set OPENAI_API_KEY (api.openai.com) or OPENAI_BASE_URL (any OpenAI-compatible server)',
    );
  }
}
