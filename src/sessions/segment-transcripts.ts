import type { Logger } from 'pino';
import type { HeardEvent } from '../pipeline/listen.js';
import { ProviderError } from '../providers/provider-error.js';
import type { PipelineSettings } from '../agents/pipeline-settings.js';
import type { SpeechProviders } from '../providers/speech-providers.js';
import {
  hearsPhrasesOnly,
  isStreaming,
  type SttProvider,
  type StreamingSttProvider,
  type SttStream,
  type SttStreamRequest,
} from '../providers/stt.js';

/** A speech segment the VAD cut, and its transcript if it was decoded while spoken. */
interface Segment {
  /** Stream time of the segment's first sample (prefix padding included), as in `speech_end`. */
  startMs: number;
  /** Null when it was not streamed (no decoder was free, or the stream gave up). */
  text: Promise<string> | null;
}

/** Segments kept for the turns that ask for them: more than one utterance ever joins. */
const keptSegments = 32;

/**
 * One session's streaming transcription: the VAD's audio of each possible utterance goes to a
 * recogniser stream opened at its onset (`audio`), which is dropped when the onset is dismissed and
 * finished when the VAD ends the segment (`heard`), so its transcript is ready a few ms after the
 * end of speech. A turn's utterance (segments joined at short pauses) then reads the transcripts of
 * its segments (`transcript`), or null when one of them was not streamed: the caller transcribes
 * that audio whole. A stream that fails or falls behind is logged and counts as not streamed.
 */
export class SegmentTranscripts {
  readonly #segments: Segment[] = [];
  #stream: SttStream | null = null;
  /** Whether audio of the current possible utterance has arrived (a stream was tried for it). */
  #open = false;

  constructor(
    private readonly stt: StreamingSttProvider,
    private readonly request: SttStreamRequest,
    private readonly logger: Logger,
  ) {}

  /** Whether the recogniser decodes the agent's expected phrases as a grammar. */
  get #grammar(): boolean {
    return hearsPhrasesOnly(this.stt, this.request);
  }

  /** The VAD's audio of a possible utterance (a view, read now). */
  readonly audio = (samples: Int16Array): void => {
    if (!this.#open) {
      this.#open = true;
      this.#stream = this.#openStream();
    }
    this.#stream?.write(samples);
  };

  /**
   * The recogniser's hypothesis so far of the possible utterance being spoken: '' before its first
   * word, between utterances, or when it is not streamed (no decoder was free, or the stream gave up).
   */
  get partial(): string {
    return this.#stream?.healthy === true ? this.#stream.partial : '';
  }

  /** The microphone graph's events: a dismissed onset drops the stream, the end of a segment finishes it. */
  heard(event: HeardEvent): void {
    if (event.type === 'speech_dismissed') this.#drop();
    else if (event.type === 'speech_end') {
      const stream = this.#stream;
      this.#stream = null;
      this.#open = false;
      let text: Promise<string> | null = null;
      if (stream !== null && stream.healthy) {
        text = stream.finish();
        text.catch((err: unknown) => this.logger.warn({ err }, 'streaming transcription failed; the turn reports it'));
      } else stream?.cancel();
      this.#segments.push({ startMs: event.startMs, text });
      if (this.#segments.length > keptSegments) this.#segments.shift();
    }
  }

  /**
   * The transcript of the utterance `audio` starting at stream time `startMs` (one segment or
   * several joined), or null when any of its segments was not decoded as it was spoken, or when
   * a grammar (expected phrases) heard it in several segments: a phrase cut at a pause matches
   * none of them piece by piece, so the caller decodes the joined audio whole.
   */
  transcript(audio: Int16Array, startMs: number): Promise<string> | null {
    const endMs = startMs + audio.length / 16;
    const parts = this.#segments.filter((s) => s.startMs >= startMs - 1 && s.startMs < endMs);
    if (parts.length === 0 || Math.abs(parts[0]!.startMs - startMs) > 1) return null;
    if (parts.length > 1 && this.#grammar) return null;
    const texts = parts.map((s) => s.text);
    if (texts.some((t) => t === null)) return null;
    return Promise.all(texts).then((all) =>
      all
        .map((t) => t?.trim() ?? '')
        .filter((t) => t !== '')
        .join(' '),
    );
  }

  /** Drops the stream under way (the session ended). */
  close(): void {
    this.#drop();
  }

  #drop(): void {
    this.#stream?.cancel();
    this.#stream = null;
    this.#open = false;
  }

  #openStream(): SttStream | null {
    try {
      return this.stt.openStream(this.request);
    } catch (err) {
      // a setting the provider refuses: the whole-utterance transcription reports it on the turn
      if (err instanceof ProviderError) return null;
      throw err;
    }
  }
}

/**
 * A session's streaming transcription when its STT decodes as the user speaks (pocketsphinx), its
 * recogniser asked to load ahead (`warm`); undefined otherwise, or when the provider cannot be
 * built (each turn's transcription then reports why).
 */
export function streamingTranscripts(
  speech: SpeechProviders,
  stt: PipelineSettings['stt'],
  heard: { phrases: string[]; phrasesOnly: boolean; capturedRate: number },
  where: { logger: Logger; sessionId: string },
): SegmentTranscripts | undefined {
  let provider: SttProvider;
  try {
    provider = speech.stt(stt);
  } catch (err) {
    where.logger.warn({ err, session_id: where.sessionId }, 'no streaming transcription for this session');
    return undefined;
  }
  if (!isStreaming(provider)) return undefined;
  const logger = where.logger.child({ session_id: where.sessionId });
  const request = { sampleRate: 16_000, model: stt.model, language: stt.language, ...heard };
  // a fresh process loads its first decoder now, while the call connects, not at the first onset
  provider.warm?.(request).catch((err: unknown) => logger.warn({ err }, 'the recogniser could not load ahead'));
  return new SegmentTranscripts(provider, request, logger);
}
