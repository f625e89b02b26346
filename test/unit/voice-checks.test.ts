import { firstValueFrom, throwError, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { StageFailure } from '../../src/pipeline/reply/stage-failure.js';
import type { ServerEvent } from '../../src/sessions/transport/messages.js';
import { overheardEvents } from '../../src/sessions/voice-checks.js';

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
