import {
  catchError,
  concat,
  concatMap,
  connect,
  defer,
  EMPTY,
  map,
  merge,
  Observable,
  of,
  take,
  throwError,
  type OperatorFunction,
} from 'rxjs';
import type { PlayoutEvent, SpeechChunk } from './playout.js';
import { sentencesOf, splitSpeech, type SpeechText } from './sentences.js';
import { StageFailure, type ReplyStage } from './stage-failure.js';

/** What a reply answers: an utterance (16 kHz), a typed message, or a fixed text to say (the greeting). */
export type ReplySource =
  | { kind: 'audio'; audio: Int16Array; startMs?: number | undefined }
  | { kind: 'text'; text: string }
  | { kind: 'say'; text: string };

/**
 * The model and HTTP calls of a reply, each `(input) => Observable` so that tests swap them for
 * `cold()` marbles. Unsubscribing from what they return must abort the call (see `abortable`).
 */
export interface ReplyStages {
  /**
   * One transcript ('' when nothing intelligible was said). `startMs`, the stream time of
   * `audio[0]`, lets a streaming recogniser hand over what it decoded while the user spoke.
   */
  transcribe(audio: Int16Array, startMs?: number): Observable<string>;
  /** The answer to a transcript, as text deltas (the webhook's reply whole, an LLM's tokens). */
  answer(transcript: string): Observable<string>;
  /** Speech for one sentence, at the playout rate. */
  synthesize(sentence: string): Observable<Int16Array>;
  /**
   * Given when the TTS takes text as it is produced: speech for the whole answer, its text pushed
   * as it arrives and each piece (`sentence`) flushed, at the playout rate, each chunk with the
   * index of the sentence it speaks. Then `synthesize` speaks only what is not an answer (the
   * fallback line).
   */
  synthesizeStream?(text: Observable<SpeechText>): Observable<SpeechChunk>;
  /**
   * Speech the VAD confirmed that `transcribe` found no words in: completes when that means
   * nothing was said (a cough, a breath, line noise), fails with a StageFailure (already recorded)
   * when the recogniser has evidence of words it could not give. Without it, nothing was said.
   */
  noWords?(audio: Int16Array): Observable<never>;
}

/** What happens during a reply, in order; each is emitted the moment it happens. */
export type ReplyEvent =
  /** The user's words; '' means none were heard and the reply ends here (after `noWords`). Not emitted for `say`. */
  | { type: 'transcribed'; text: string }
  /** A sentence of the answer is ready (it goes to TTS now). */
  | { type: 'sentence'; index: number; text: string }
  /** The whole answer has been produced. */
  | { type: 'answered'; text: string }
  /** The first frame of sentence `sentence` is about to be sent. */
  | { type: 'sentence_audio'; sentence: number }
  /** The last frame has been played: the reply is over. */
  | { type: 'played'; samples: number }
  /** A stage failed (already recorded as `errorId`, of type `reason`); the reply is over. */
  | { type: 'failed'; stage: ReplyStage; message: string; errorId: string | null; reason: string };

/**
 * One reply: transcribe → answer → sentences → synthesize → playout, as one cold Observable.
 * With `synthesizeStream` the answer's text goes to TTS as it arrives instead (flushed at each
 * piece, so its first audio is asked for at the first clause), and its events stay the same.
 * Subscribing starts it; unsubscribing (the session machine leaving the state that invoked it)
 * tears every stage down: the HTTP call in flight is aborted, TTS stops, queued audio is dropped.
 *
 * Edges: sentences are synthesized one after another (`concatMap`: the answer bounds the queue)
 * while earlier ones play, so speech has no gaps between sentences; `speak` (a `playout`) paces
 * the audio out. The answer's text events and its audio share one subscription to the answer
 * (`connect`), so the LLM is called once.
 */
export function reply(
  source: ReplySource,
  stages: ReplyStages,
  speak: OperatorFunction<SpeechChunk, PlayoutEvent>,
): Observable<ReplyEvent> {
  const transcript$: Observable<string> =
    source.kind === 'audio'
      ? stages.transcribe(source.audio, source.startMs).pipe(
          take(1),
          map((text) => text.trim()),
        )
      : of(source.text);
  return transcript$.pipe(
    concatMap((transcript) => {
      const heard: ReplyEvent[] = source.kind === 'say' ? [] : [{ type: 'transcribed', text: transcript }];
      if (transcript === '')
        return concat(of(...heard), source.kind === 'audio' ? (stages.noWords?.(source.audio) ?? EMPTY) : EMPTY);
      const answer$ = source.kind === 'say' ? of(transcript) : stages.answer(transcript);
      return concat(
        of(...heard),
        answer$.pipe(
          splitSpeech(),
          connect((speech) =>
            merge(
              textOf(sentencesOf(speech)),
              (stages.synthesizeStream?.(speech) ?? speechOf(sentencesOf(speech), stages)).pipe(
                speak,
                map(fromPlayout),
              ),
            ),
          ),
        ),
      );
    }),
    catchError((err: unknown) =>
      err instanceof StageFailure
        ? of<ReplyEvent>({
            type: 'failed',
            stage: err.stage,
            message: err.message,
            errorId: err.errorId,
            reason: err.reason,
          })
        : throwError(() => err),
    ),
  );
}

/** One `sentence` event per sentence, then `answered` with the whole text. */
function textOf(sentences: Observable<string>): Observable<ReplyEvent> {
  return defer(() => {
    const all: string[] = [];
    return concat(
      sentences.pipe(
        map((text, index): ReplyEvent => {
          all.push(text);
          return { type: 'sentence', index, text };
        }),
      ),
      defer(() => of<ReplyEvent>({ type: 'answered', text: all.join(' ') })),
    );
  });
}

function speechOf(sentences: Observable<string>, stages: ReplyStages): Observable<SpeechChunk> {
  return sentences.pipe(
    concatMap((text, sentence) => stages.synthesize(text).pipe(map((samples) => ({ sentence, samples })))),
  );
}

function fromPlayout(event: PlayoutEvent): ReplyEvent {
  return event.type === 'drained'
    ? { type: 'played', samples: event.samples }
    : { type: 'sentence_audio', sentence: event.sentence };
}
