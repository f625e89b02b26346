import { createHash } from 'node:crypto';
import { HttpReceiver, type ReceivedRequest, type Reply } from './http-receiver.js';

export interface EmbeddingsRequest {
  model: string;
  input: string | string[];
  encoding_format?: string;
}

/** A deterministic, unnormalised vector of `dims` numbers for a text (from its SHA-256). */
export function fakeEmbedding(text: string, dims: number): number[] {
  const out: number[] = [];
  let block = Buffer.alloc(0);
  for (let i = 0; out.length < dims; i++) {
    if (block.length === 0) block = createHash('sha256').update(`${i}:${text}`).digest();
    out.push((block.readUInt8(0) - 128) / 16);
    block = block.subarray(1);
  }
  return out;
}

/**
 * A local server speaking OpenAI's embeddings API (`POST /v1/embeddings`), answering with
 * deterministic vectors (data shuffled out of index order, as the API allows).
 */
export async function startOpenAiEmbeddingsServer(dims = 16): Promise<HttpReceiver & { baseUrl: string }> {
  const server = await HttpReceiver.start(async (req: ReceivedRequest): Promise<Reply> => {
    if (req.method !== 'POST' || !req.path.endsWith('/embeddings'))
      return { status: 404, body: { error: { message: 'not found' } } };
    const body = req.json as EmbeddingsRequest;
    const inputs = typeof body.input === 'string' ? [body.input] : body.input;
    const data = inputs
      .map((text, index) => ({ object: 'embedding', index, embedding: fakeEmbedding(text, dims) }))
      .reverse();
    return { body: { object: 'list', data, model: body.model, usage: { prompt_tokens: 0, total_tokens: 0 } } };
  });
  return Object.assign(server, { baseUrl: `${server.url}/v1` });
}
