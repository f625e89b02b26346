import { toFile } from 'openai';
import { encodeWav } from '../../audio/wav.js';
import type { SttProvider, SttRequest } from '../stt.js';
import { openAiClient, type OpenAiEndpoint } from './client.js';
import { assertConfigured, openAiFailure } from './openai-error.js';
import { ProviderError } from '../provider-error.js';

export interface OpenAiSttOptions {
  /** Longest wait for a transcript, in ms. */
  timeoutMs: number;
}

export const defaultOpenAiSttOptions: OpenAiSttOptions = {
  timeoutMs: 30_000,
};

/** Longest vocabulary prompt, in characters: about 200 tokens (Whisper reads a prompt's last 224). */
export const promptChars = 800;

/**
 * The agent's expected phrases as the transcription's `prompt` ("conference, pound key, waldo"):
 * Whisper-family models take the prompt as preceding text, so its words and spellings become
 * likelier. The phrases in order while they fit in `promptChars`; null for none.
 */
export function vocabularyPrompt(phrases: readonly string[] | undefined): string | null {
  let prompt = '';
  for (const phrase of phrases ?? []) {
    const next = prompt === '' ? phrase.trim() : `${prompt}, ${phrase.trim()}`;
    if (next.length > promptChars) break;
    prompt = next;
  }
  return prompt === '' ? null : prompt;
}

/**
 * Transcription on any OpenAI-compatible server (`POST /v1/audio/transcriptions`: OpenAI,
 * speaches, faster-whisper-server, vLLM, …). The utterance is sent as a 16-bit mono WAV upload,
 * the agent's expected phrases as its `prompt`.
 */
export class OpenAiStt implements SttProvider {
  readonly label = 'openai';
  private readonly options: OpenAiSttOptions;

  constructor(
    private readonly endpoint: OpenAiEndpoint,
    options: Partial<OpenAiSttOptions> = {},
  ) {
    this.options = { ...defaultOpenAiSttOptions, ...options };
  }

  async transcribe(request: SttRequest): Promise<string> {
    const { signal } = request;
    signal?.throwIfAborted();
    assertConfigured(this.endpoint);
    const file = await toFile(encodeWav({ samples: request.audio, sampleRate: request.sampleRate }), 'utterance.wav', {
      type: 'audio/wav',
    });
    const prompt = vocabularyPrompt(request.phrases);
    let text: unknown;
    try {
      const result: unknown = await openAiClient(this.endpoint).audio.transcriptions.create(
        {
          file,
          model: request.model,
          ...(request.language === null ? {} : { language: request.language }),
          ...(prompt === null ? {} : { prompt }),
        },
        { signal, timeout: this.options.timeoutMs },
      );
      text = (result as { text?: unknown } | null)?.text;
    } catch (err) {
      throw openAiFailure('transcription', err, signal);
    }
    // A 200 without a transcript (an empty body, JSON of another shape) is a failed call, not silence.
    if (typeof text !== 'string') throw new ProviderError('openai', 'transcription failed: the answer has no "text"');
    return text.trim();
  }
}
