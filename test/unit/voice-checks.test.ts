import { firstValueFrom, of, throwError, toArray, type Observable } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { StageFailure } from '../../src/pipeline/reply/stage-failure.js';
import type { SessionEvent } from '../../machines/session.machine.js';
import type { ServerEvent } from '../../src/sessions/transport/messages.js';
import type { SegmentTranscripts } from '../../src/sessions/segment-transcripts.js';
import { UtteranceSoFar } from '../../src/sessions/utterance-so-far.js';
import {
  checkpointEveryMs,
  overhearingEvents,
  overheardEvents,
  partialEveryMs,
  saidSoFar,
} from '../../src/sessions/voice-checks.js';

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

describe('what the user has said so far over the agent (OVERHEARING)', () => {
  /** The events of `events` until `untilMs`, each with its virtual time. */
  function timed(events: (scheduler: TestScheduler) => Observable<SessionEvent>, untilMs: number) {
    const out: [number, SessionEvent][] = [];
    const scheduler = new TestScheduler((a, b) => expect(a).toEqual(b));
    scheduler.run(() => {
      const subscription = events(scheduler).subscribe((e) => out.push([scheduler.now(), e]));
      scheduler.schedule(() => subscription.unsubscribe(), untilMs);
    });
    return out;
  }
  const heard = (partial: string) => ({ type: 'OVERHEARING', partial });

  it("a streaming recogniser's hypothesis is read every partialEveryMs and sent when it changes", () => {
    const hypotheses = ['', 'what', 'what', ' what about ', 'what about', '', 'what about it'];
    let read = 0;
    const events = timed(() => overhearingEvents({ partial: () => hypotheses[read++] ?? 'what about it' }), 600);
    expect(partialEveryMs).toBe(50);
    expect(events).toEqual([
      [100, heard('what')],
      [200, heard('what about')],
      [350, heard('what about it')],
    ]);
  });

  it('otherwise the audio so far is transcribed every checkpointEveryMs, one call at a time; a failed call is skipped', () => {
    const sizes: number[] = [];
    let length = 0;
    const failure = new StageFailure('transcribe', 'timed out', { id: 'err_1', type: 'stt_error' });
    const events = timed((scheduler) => {
      const replies = [
        scheduler.createColdObservable('700ms (a|)', { a: 'i want' }),
        scheduler.createColdObservable('100ms #', {}, failure),
        scheduler.createColdObservable('50ms (a|)', { a: 'i want to know' }),
      ];
      return overhearingEvents({
        samples: () => new Int16Array((length += 8_000)),
        transcribe: (audio) => {
          sizes.push(audio.length);
          return replies[sizes.length - 1]!;
        },
      });
    }, 2_400);
    expect(checkpointEveryMs).toBe(500);
    // 500: call 1 (until 1200: the checkpoint at 1000 is skipped); 1500: call 2 fails; 2000: call 3
    expect(sizes).toEqual([8_000, 16_000, 24_000]);
    expect(events).toEqual([
      [1_200, heard('i want')],
      [2_050, heard('i want to know')],
    ]);
  });

  it('a session hears it from its streaming transcripts, else from its audio so far, transcribed whole', async () => {
    const transcribed: number[] = [];
    const stages = { transcribe: (audio: Int16Array) => (transcribed.push(audio.length), of('i want to')) };
    const transcripts = { partial: 'what about' } as SegmentTranscripts;
    const streamed = saidSoFar({ stages, transcripts, soFar: undefined });
    expect(streamed !== null && 'partial' in streamed && streamed.partial()).toBe('what about');
    const soFar = new UtteranceSoFar();
    soFar.audio(new Int16Array(4_000));
    const whole = saidSoFar({ stages, transcripts: undefined, soFar });
    expect(whole !== null && 'samples' in whole).toBe(true);
    if (whole === null || !('samples' in whole)) return;
    expect(await firstValueFrom(whole.transcribe(whole.samples()))).toBe('i want to');
    expect(transcribed).toEqual([4_000]);
    expect(saidSoFar({ stages, transcripts: undefined, soFar: undefined })).toBeNull();
  });

  it('an error that is not a failed transcription ends the graph', async () => {
    const bug = new TypeError('bug');
    const events = overhearingEvents({ samples: () => new Int16Array(160), transcribe: () => throwError(() => bug) });
    await expect(firstValueFrom(events)).rejects.toBe(bug);
  });
});
