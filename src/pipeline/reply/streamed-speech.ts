import { Observable } from 'rxjs';
import type { TtsStream } from '../../providers/tts.js';
import type { SpeechChunk } from './playout.js';
import type { SpeechText } from './sentences.js';
import { resampleSegments } from './speech-resampler.js';

/**
 * An answer's speech through one TTS text stream: the stream opens at the answer's first words
 * (not before: a turn still waiting for its webhook or LLM holds no socket open), each `text` is
 * pushed as it arrives and each `sentence` flushes it, the answer's end ends it. Its audio comes
 * out at `rate`, each chunk with the sentence it speaks. Unsubscribing (barge-in, hang-up) aborts
 * the stream's signal, which closes it; an answer that fails aborts it too.
 *
 * Backpressure: none needed. Text in is bounded by the answer; audio out goes to the playout's
 * queue as it comes, bounded by the answer too.
 */
export function streamedSpeech(
  text: Observable<SpeechText>,
  open: (signal: AbortSignal) => TtsStream,
  rate: number,
): Observable<SpeechChunk> {
  return new Observable<SpeechChunk>((subscriber) => {
    const controller = new AbortController();
    let stream: TtsStream | null = null;
    let settled = false;
    const start = (): TtsStream => {
      const opened = open(controller.signal);
      void (async () => {
        for await (const chunk of resampleSegments(opened.audio, rate)) {
          if (subscriber.closed) return;
          subscriber.next(chunk);
        }
        settled = true;
        subscriber.complete();
      })().catch((err: unknown) => {
        settled = true;
        subscriber.error(err);
      });
      return opened;
    };
    const input = text.subscribe({
      next: (piece) => {
        if (stream === null && piece.type === 'text' && piece.text.trim() === '') return;
        // thrown here it would escape to RxJS's unhandled-error hook: it is this reply's failure
        try {
          stream ??= start();
          if (piece.type === 'text') stream.push(piece.text);
          else stream.flush();
        } catch (err) {
          subscriber.error(err);
        }
      },
      error: (err: unknown) => subscriber.error(err),
      complete: () => {
        try {
          if (stream === null) subscriber.complete();
          else stream.end();
        } catch (err) {
          subscriber.error(err);
        }
      },
    });
    return () => {
      input.unsubscribe();
      // a stream that has ended has nothing to close
      if (!settled) controller.abort();
    };
  });
}
