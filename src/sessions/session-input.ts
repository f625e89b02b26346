import { defer, finalize, map, merge, mergeMap, of, tap, EMPTY, type Observable } from 'rxjs';
import type { SessionEvent } from '../../machines/session.machine.js';
import type { IntakeStats, OverrunReason } from '../pipeline/intake/limits.js';
import { listen, type ListenOptions } from '../pipeline/listen.js';
import type { MediaTransport } from './transport/media-transport.js';
import type { SegmentTranscripts } from './segment-transcripts.js';
import type { AudioFrame } from '../audio/audio-frame.js';

export interface SessionInputOptions extends Omit<ListenOptions, 'stats' | 'now'> {
  stats: IntakeStats;
  now: () => number;
  /** Audio was dropped for the first time for `reason`. */
  onOverrun: (reason: OverrunReason) => void;
  /** A streaming recogniser that decodes each utterance while it is spoken; none: turns transcribe whole. */
  transcripts?: SegmentTranscripts | undefined;
  /** Keypad digits arrived (a phone call): told before the machine hears them as a text turn. */
  onDigits?: ((digits: string) => void) | undefined;
  /** Every caller frame, as it arrives (the session's recording). */
  onFrame?: ((frame: AudioFrame) => void) | undefined;
}

/**
 * The audio the session listens to, with `onFrame` told of every frame as it arrived: from the
 * transport's `arrivedAudio$` while the session listens, where it has one, else from `audio$`.
 */
function recordedInput(transport: MediaTransport, onFrame: ((frame: AudioFrame) => void) | undefined) {
  if (onFrame === undefined) return transport.audio$;
  const arrived$ = transport.arrivedAudio$;
  if (arrived$ === undefined) return transport.audio$.pipe(tap(onFrame));
  return defer(() => {
    const recording = arrived$.subscribe({
      next: onFrame,
      // the transport's failure reaches the session through audio$ too, which ends it there
      error: () => undefined,
    });
    return transport.audio$.pipe(finalize(() => recording.unsubscribe()));
  });
}

/** How keypad digits reach the LLM or webhook: as the user's words. */
export const keypadText = (digits: string): string => `keypad: ${digits}`;

/**
 * Everything the user does, as session machine events: the microphone graph's speech start/end,
 * typed messages and keypad digits (as text), hang-up (`end` or the connection closing). The
 * machine invokes this for the whole session (`listen`), so it is unsubscribed, VAD stream and all,
 * when the session ends.
 */
export function sessionInput(transport: MediaTransport, options: SessionInputOptions): Observable<SessionEvent> {
  const { transcripts } = options;
  const listening = transcripts === undefined ? options : { ...options, onSpeechAudio: transcripts.audio };
  const { onFrame } = options;
  const audio$ = recordedInput(transport, onFrame);
  const heard = listen(audio$, listening).pipe(
    // before the machine hears of it: a segment's stream is finished when its turn asks for it
    tap((event) => transcripts?.heard(event)),
    mergeMap((event): Observable<SessionEvent> => {
      if (event.type === 'speech_onset') return of({ type: 'SPEECH_ONSET' });
      if (event.type === 'speech_dismissed') return of({ type: 'SPEECH_DISMISSED' });
      if (event.type === 'speech_start') return of({ type: 'SPEECH_START' });
      if (event.type === 'speech_end') return of({ ...event, type: 'SPEECH_END' });
      options.onOverrun(event.reason);
      return EMPTY;
    }),
  );
  const typed = transport.messages$.pipe(
    map((message): SessionEvent => {
      if (message.type === 'end') return { type: 'HANGUP' };
      if (message.type === 'text') return { type: 'TEXT', text: message.text, receivedAt: options.now() };
      options.onDigits?.(message.digits);
      return { type: 'TEXT', text: keypadText(message.digits), receivedAt: options.now() };
    }),
  );
  const closed = transport.closed$.pipe(map((): SessionEvent => ({ type: 'HANGUP' })));
  return merge(heard, typed, closed);
}
