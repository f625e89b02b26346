import type { SttStreamRequest } from '../stt.js';

/** Deepgram's hosted API; PARLEY_DEEPGRAM_URL names another (a self-hosted Deepgram, a proxy). */
export const defaultDeepgramUrl = 'wss://api.deepgram.com';

export interface DeepgramOptions {
  /** PARLEY_DEEPGRAM_API_KEY, sent as `Authorization: Token <key>`; a self-hosted Deepgram needs none. */
  apiKey: string | undefined;
  /**
   * PARLEY_DEEPGRAM_URL: the service (ws, wss, http or https; a path prefix is kept, query
   * parameters go with every stream); undefined: Deepgram's hosted API.
   */
  url: string | undefined;
  /**
   * How long the opening handshake may take, and how long the final transcript may take after
   * the end of an utterance (PARLEY_PROVIDER_STALL_MS), in ms.
   */
  stallMs: number;
  /** Audio per binary message when a whole utterance is sent at once (`transcribe`), in ms. */
  chunkMs: number;
}

export const defaultDeepgramOptions: DeepgramOptions = {
  apiKey: undefined,
  url: undefined,
  stallMs: 10_000,
  chunkMs: 250,
};

/** Deepgram takes at most 100 key terms (keyterm) or keywords per request. */
const maxTerms = 100;

/** What Parley asks of every stream unless PARLEY_DEEPGRAM_URL's own query says otherwise. */
const overridable: Readonly<Record<string, string>> = {
  interim_results: 'true',
  punctuate: 'true',
  smart_format: 'true',
};

/** Why Deepgram cannot be used here, or null: the hosted API needs a key, a self-hosted one an address. */
export function deepgramProblem(options: Pick<DeepgramOptions, 'apiKey' | 'url'>): string | null {
  if (options.apiKey !== undefined || options.url !== undefined) return null;
  return 'set PARLEY_DEEPGRAM_API_KEY (api.deepgram.com) or PARLEY_DEEPGRAM_URL (a self-hosted Deepgram)';
}

/** The handshake's headers: the key as Deepgram's `Token` scheme, when there is one. */
export function authHeaders(apiKey: string | undefined): Record<string, string> {
  return apiKey === undefined ? {} : { Authorization: `Token ${apiKey}` };
}

/**
 * The `/v1/listen` address of one stream: linear16 mono at the request's rate, interim results,
 * punctuation and smart formatting (its words feed smart endpointing), the preset's model and
 * language, and the agent's expected phrases as vocabulary (`keyterm` for Nova-3, `keywords` for
 * older models). Query parameters of PARLEY_DEEPGRAM_URL are kept (`mip_opt_out`, `redact`, …)
 * and may turn off the defaults above; the audio format, model, language and vocabulary are
 * always Parley's.
 */
export function listenUrl(options: Pick<DeepgramOptions, 'url'>, request: SttStreamRequest): URL {
  const url = new URL(options.url ?? defaultDeepgramUrl);
  if (url.protocol === 'http:') url.protocol = 'ws:';
  if (url.protocol === 'https:') url.protocol = 'wss:';
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/v1/listen`;
  url.hash = '';
  const query = url.searchParams;
  for (const [name, value] of Object.entries(overridable)) if (!query.has(name)) query.set(name, value);
  const own: [string, string][] = [
    ['model', request.model],
    ['encoding', 'linear16'],
    ['sample_rate', String(request.sampleRate)],
    ['channels', '1'],
  ];
  if (request.language !== null) own.push(['language', request.language]);
  for (const name of ['model', 'encoding', 'sample_rate', 'channels', 'language', 'keyterm', 'keywords'])
    query.delete(name);
  for (const [name, value] of [...own, ...vocabulary(request.model, request.phrases)]) query.append(name, value);
  return url;
}

/**
 * The agent's expected phrases as Deepgram vocabulary: Nova-3 takes whole phrases (`keyterm`,
 * one parameter each); older models take single words (`keywords`; a phrase is its words), and
 * refuse `keyterm`'s counterpart the other way round (Nova-3 answers 400 to `keywords`).
 */
export function vocabulary(model: string, phrases: readonly string[] | undefined): [string, string][] {
  const cleaned = (phrases ?? []).map((p) => p.trim().replace(/\s+/g, ' ')).filter((p) => p !== '');
  if (model.startsWith('nova-3')) return unique(cleaned).map((p) => ['keyterm', p]);
  return unique(cleaned.flatMap((p) => p.split(' '))).map((w) => ['keywords', w]);
}

function unique(terms: string[]): string[] {
  return [...new Set(terms)].slice(0, maxTerms);
}
