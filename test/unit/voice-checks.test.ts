import { firstValueFrom, throwError, toArray, type Observable } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { StageFailure } from '../../src/pipeline/reply/stage-failure.js';
import type { SessionEvent } from '../../machines/session.machine.js';
import { twoWordsAfterMs } from '../../machines/turn-words/barge-in.js';
import type { ServerEvent } from '../../src/sessions/transport/messages.js';
import { longSpeechMs, overhearingEvents, overheardEvents, partialEveryMs } from '../../src/sessions/voice-checks.js';

describe('speech over the agent whose transcription fails', () => {
  it('counts as nothing said (playback resumes) and tells the user with a turn_failed error', async () => {
    const told: ServerEvent[] = [];
    const failure = new StageFailure('transcribe', 'openai: transcription timed out', {
      id: 'err_1',
      type: 'stt_error',
    });
    const events = await firstValueFrom(
      overheardEvents({ transcribe: () => throwError(() => failure) }, new Int16Array(160), 0, (m) =>
        told.push(m),
      ).pipe(toArray()),
    );
    expect(events).toEqual([{ type: 'OVERHEARD', text: '' }]);
    expect(told).toEqual([
      { type: 'error', code: 'turn_failed', reason: 'stt_error', message: 'the speech over the answer was not heard' },
    ]);
  });

  it('any other error is not a failed transcription: it ends the graph (the session decides)', async () => {
    const bug = new TypeError('bug');
    await expect(
      firstValueFrom(overheardEvents({ transcribe: () => throwError(() => bug) }, new Int16Array(160))),
    ).rejects.toBe(bug);
  });
});

describe('what is known of the speech over the agent while it goes on', () => {
  /** The events of `events` until `untilMs`, each with its virtual time. */
  function timed(events: () => Observable<SessionEvent>, untilMs: number) {
    const out: [number, SessionEvent][] = [];
    const scheduler = new TestScheduler((a, b) => expect(a).toEqual(b));
    scheduler.run(() => {
      const subscription = events().subscribe((e) => out.push([scheduler.now(), e]));
      scheduler.schedule(() => subscription.unsubscribe(), untilMs);
    });
    return out;
  }
  const heard = (partial: string, speechMs: number, murmured = false) => ({
    type: 'OVERHEARING',
    partial,
    speechMs,
    murmured,
  });

  it("a streaming recogniser's hypothesis is read every partialEveryMs and sent when it changes (OVERHEARING)", () => {
    const hypotheses = ['', 'what', 'what', ' what about ', 'what about', '', 'what about it'];
    let read = 0;
    const events = timed(() => overhearingEvents(() => hypotheses[read++] ?? 'what about it'), 800);
    expect(partialEveryMs).toBe(50);
    expect(events).toEqual([
      [100, heard('what', 100)],
      [200, heard('what about', 200)],
      [350, heard('what about it', 350)],
      // unchanged, sent once more when two words may interrupt
      [twoWordsAfterMs, heard('what about it', twoWordsAfterMs)],
    ]);
  });

  it('tells whether a hypothesis of the speech so far held a lone letter (murmured), from then on', () => {
    const hypotheses = ['an', 'an m a', 'and then made', 'and then made'];
    let read = 0;
    const events = timed(() => overhearingEvents(() => hypotheses[read++] ?? 'and then made'), 700);
    expect(events).toEqual([
      [50, heard('an', 50)],
      [100, heard('an m a', 100, true)],
      [150, heard('and then made', 150, true)],
      [twoWordsAfterMs, heard('and then made', twoWordsAfterMs, true)],
    ]);
  });

  it('without one, only that it has gone on longSpeechMs (LONG_SPEECH), once', () => {
    expect(timed(() => overhearingEvents(null), 5_000)).toEqual([[longSpeechMs, { type: 'LONG_SPEECH' }]]);
    expect(longSpeechMs).toBe(1_500);
    expect(timed(() => overhearingEvents(null), longSpeechMs - 1)).toEqual([]); // a pause came first
  });
});
