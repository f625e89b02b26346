import { Pcm16Decoder } from '../../audio/pcm16-decoder.js';
import { ProviderError } from '../provider-error.js';
import type { TtsChunk, TtsProvider, TtsRequest } from '../tts.js';
import { openAiClient, type OpenAiEndpoint } from './client.js';
import { assertConfigured, openAiFailure } from './openai-error.js';

export interface OpenAiTtsOptions {
  /** Longest wait for the response to start, in ms. */
  timeoutMs: number;
  /** Sample rate of `response_format: "pcm"` (OpenAI's is fixed at 24 kHz). */
  sampleRate: number;
}

export const defaultOpenAiTtsOptions: OpenAiTtsOptions = {
  timeoutMs: 30_000,
  sampleRate: 24_000,
};

/**
 * Speech on any OpenAI-compatible server (`POST /v1/audio/speech`: OpenAI, Kokoro-FastAPI,
 * speaches, …) as raw PCM16LE, yielded chunk by chunk as the response body arrives so playback
 * starts before synthesis ends. Aborting cancels the request and ends the iteration quietly.
 */
export class OpenAiTts implements TtsProvider {
  readonly label = 'openai';
  private readonly options: OpenAiTtsOptions;

  constructor(
    private readonly endpoint: OpenAiEndpoint,
    options: Partial<OpenAiTtsOptions> = {},
  ) {
    this.options = { ...defaultOpenAiTtsOptions, ...options };
  }

  async *synthesize(request: TtsRequest): AsyncIterable<TtsChunk> {
    const { signal } = request;
    if (signal?.aborted || request.text.trim() === '') return;
    assertConfigured(this.endpoint);
    let response: Response;
    try {
      response = await openAiClient(this.endpoint).audio.speech.create(
        {
          model: request.model,
          voice: request.voice,
          input: request.text,
          response_format: 'pcm',
          speed: request.speed,
        },
        { signal, timeout: this.options.timeoutMs },
      );
    } catch (err) {
      if (signal?.aborted) return;
      throw openAiFailure('speech', err, signal);
    }
    const body = response.body;
    if (body === null) throw new ProviderError('openai', 'speech failed: the response had no body');
    // Raw PCM comes as audio/* or application/octet-stream; text or JSON on a 200 is an error page.
    const type = response.headers.get('content-type') ?? '';
    if (/^(text\/|application\/(json|problem|xml|xhtml))/i.test(type)) {
      await body.cancel().catch(() => undefined); // the answer is refused unread: nothing left to report
      throw new ProviderError('openai', `speech failed: the answer is ${type.split(';')[0]}, not audio`);
    }
    const reader = body.getReader();
    const pcm = new Pcm16Decoder();
    const { sampleRate } = this.options;
    let heard = false;
    try {
      for (;;) {
        let next: Awaited<ReturnType<typeof reader.read>>;
        try {
          next = await reader.read();
        } catch (err) {
          if (signal?.aborted) return;
          throw new ProviderError(
            'openai',
            `speech failed while streaming: ${err instanceof Error ? err.message : String(err)}`,
            {
              cause: err,
            },
          );
        }
        if (next.done) {
          // a 200 that carried no audio for words to say is a failed call, not a silent sentence
          if (!heard && !signal?.aborted) throw new ProviderError('openai', 'speech failed: the answer had no audio');
          return;
        }
        if (signal?.aborted) return;
        heard ||= next.value.length > 0;
        const samples = pcm.push(next.value);
        if (samples.length > 0) yield { samples, sampleRate };
      }
    } finally {
      await reader.cancel().catch(() => {}); // best-effort cleanup: the body may already have errored or closed
    }
  }
}
