import { z } from 'zod';

/**
 * What Deepgram's `/v1/listen` sends, as far as Parley reads it: `Results` (interim, or final
 * with `is_final`; the one that answers a `Finalize` has `from_finalize`), `Metadata` (after
 * `CloseStream`, before the socket closes). `SpeechStarted`, `UtteranceEnd` and any type added
 * later are `other`: Parley does its own turn detection.
 */
export type ListenFrame =
  | { type: 'Results'; transcript: string; isFinal: boolean; fromFinalize: boolean }
  | { type: 'Metadata'; requestId: string | null; durationS: number | null }
  | { type: 'other'; name: string };

/** A frame that is not one of Deepgram's (not JSON, no `type`, a `Results` without a transcript). */
export class FrameError extends Error {
  override readonly name = 'FrameError';
}

const resultsSchema = z.object({
  is_final: z.boolean().optional(),
  from_finalize: z.boolean().optional(),
  channel: z.object({ alternatives: z.array(z.object({ transcript: z.string() })) }),
});

const metadataSchema = z.object({ request_id: z.string().optional(), duration: z.number().optional() });

/** One text frame from Deepgram, or a FrameError saying what is wrong with it. */
export function parseFrame(text: string): ListenFrame {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new FrameError(`a frame that is not JSON (${excerpt(text)})`);
  }
  const type = typeof json === 'object' && json !== null ? (json as { type?: unknown }).type : undefined;
  if (typeof type !== 'string') throw new FrameError(`a frame without a type (${excerpt(text)})`);
  if (type === 'Results') {
    const results = resultsSchema.safeParse(json);
    if (!results.success) throw new FrameError(`a Results frame without a transcript (${excerpt(text)})`);
    const { is_final, from_finalize, channel } = results.data;
    return {
      type,
      // the first alternative is the best one; none at all is no words
      transcript: channel.alternatives[0]?.transcript.trim() ?? '',
      isFinal: is_final === true,
      fromFinalize: from_finalize === true,
    };
  }
  if (type === 'Metadata') {
    const metadata = metadataSchema.safeParse(json);
    const data = metadata.success ? metadata.data : {};
    return { type, requestId: data.request_id ?? null, durationS: data.duration ?? null };
  }
  return { type: 'other', name: type };
}

function excerpt(text: string): string {
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text);
}

/**
 * The transcript of one stream as Deepgram writes it: each final result fixes the words of its
 * span, interim results revise the span after the last final one. Punctuation and casing are
 * Deepgram's (they decide smart endpointing's wait).
 */
export class HeardSoFar {
  readonly #finals: string[] = [];
  #interim = '';

  add(results: Extract<ListenFrame, { type: 'Results' }>): void {
    if (!results.isFinal) {
      this.#interim = results.transcript;
      return;
    }
    if (results.transcript !== '') this.#finals.push(results.transcript);
    this.#interim = '';
  }

  /** The final words and the interim ones after them: the best hypothesis so far. */
  get partial(): string {
    return [...this.#finals, this.#interim].filter((t) => t !== '').join(' ');
  }

  /** The final words only: the transcript once the stream is finalized. */
  get final(): string {
    return this.#finals.join(' ');
  }
}
