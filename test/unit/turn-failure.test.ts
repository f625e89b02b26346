import { describe, expect, it } from 'vitest';
import type { ReplyStages } from '../../src/pipeline/reply/reply.js';
import { StageFailure, type ReplyStage } from '../../src/pipeline/reply/stage-failure.js';
import type { ServerEvent } from '../../src/sessions/transport/messages.js';
import { failureMessage } from '../../src/sessions/turn-failure.js';
import { converse, speech, speechEnd, text, types, type Cold, type Sent } from '../support/turn-bed.js';

/**
 * A turn that cannot be answered, in virtual time (test/support/turn-bed.ts): the user is told
 * why (`error` with its `reason`) and hears the agent's fallback line, unless the line is empty or
 * the TTS is what failed.
 */

const failing =
  (stage: ReplyStage, reason: string) =>
  (cold: Cold): ReplyStages => {
    const down = new StageFailure(stage, `${stage} is down`, { id: 'err_1', type: reason });
    return {
      transcribe: () => (stage === 'transcribe' ? cold('50ms #', {}, down) : cold('50ms a|', { a: 'hello' })),
      answer: () => (stage === 'answer' ? cold('10ms #', {}, down) : cold('a|', { a: 'Hi.' })),
      synthesize: (t: string) =>
        stage === 'synthesize' && t === 'Hi.'
          ? cold<Int16Array>('#', {}, down)
          : cold('s|', { s: new Int16Array(100) }),
    };
  };
const events = (sent: Sent[]) => sent.flatMap(([t, e]) => (e === 'audio' ? [] : [[t, e] as [number, ServerEvent]]));

describe('a turn whose answer fails', () => {
  it('tells the reason, then speaks the fallback line as that turn (audio_start, audio_end)', async () => {
    const spoken: string[] = [];
    const { sent, recorded } = await converse(
      (cold) => cold('a', { a: text('hi') }),
      (cold) => {
        const stages = failing('answer', 'webhook_timeout')(cold);
        return { ...stages, synthesize: (t) => (spoken.push(t), stages.synthesize(t)) };
      },
      { fallbackLine: 'Sorry, not now.' },
    );
    expect(events(sent)).toEqual([
      [0, { type: 'transcript', turn: 1, text: 'hi' }],
      [10, { type: 'error', code: 'turn_failed', reason: 'webhook_timeout', message: 'no answer for this turn' }],
      [10, { type: 'audio_start', turn: 1, sample_rate: 1000 }],
      [110, { type: 'audio_end', turn: 1 }],
    ]);
    expect(spoken).toEqual(['Sorry, not now.']);
    expect(sent.filter(([, e]) => e === 'audio')).toHaveLength(5); // 100 ms in 20 ms frames
    // The turn stays a failed answer: the fallback is not stored as what the agent answered.
    expect(recorded).toEqual([
      ['user', 'hi'],
      ['answered', { status: 'failed', text: '', source: 'webhook' }],
    ]);
  });

  it('says nothing after the error when the fallback line is empty', async () => {
    const { sent } = await converse((cold) => cold('a', { a: text('hi') }), failing('answer', 'llm_error'));
    expect(types(sent)).toEqual([
      [0, 'transcript'],
      [10, 'error'],
    ]);
    expect(sent.filter(([, e]) => e === 'audio')).toEqual([]);
  });

  it('the user can talk over the fallback line as over an answer (barge-in), and is answered', async () => {
    let calls = 0;
    const { sent } = await converse(
      (cold) => cold('a 29ms b 349ms c', { a: text('hi'), b: speech(), c: speechEnd() }),
      (cold) => ({
        transcribe: () => cold('10ms a|', { a: 'Hello again.' }),
        answer: () =>
          ++calls === 1
            ? cold('10ms #', {}, new StageFailure('answer', 'down', { id: 'err_1', type: 'llm_error' }))
            : cold('a|', { a: 'Welcome back.' }),
        synthesize: () => cold('s|', { s: new Int16Array(1_000) }),
      }),
      { fallbackLine: 'Sorry, not now.' },
    );
    expect(types(sent)).toEqual([
      [0, 'transcript'],
      [10, 'error'],
      [10, 'audio_start'],
      [30, 'playback_paused'],
      [390, 'interrupted'],
      [390, 'transcript'],
      // 'Welcome back.' is a sentence once the answer has ended (at 391)
      [391, 'response'],
      [391, 'response'],
      [391, 'audio_start'],
      [1_391, 'audio_end'],
    ]);
  });
});

describe('a turn whose transcription fails', () => {
  it('speaks the fallback once the turn is confirmed (smart endpointing: at endpointing_max_ms)', async () => {
    const { sent } = await converse((cold) => cold('a', { a: speechEnd() }), failing('transcribe', 'stt_error'), {
      smart: true,
      fallbackLine: 'Sorry, not now.',
    });
    expect(events(sent)).toEqual([
      [50, { type: 'error', code: 'turn_failed', reason: 'stt_error', message: 'no answer for this turn' }],
      [1_500, { type: 'audio_start', turn: 1, sample_rate: 1000 }],
      [1_600, { type: 'audio_end', turn: 1 }],
    ]);
  });
});

describe('a turn whose speech fails', () => {
  it('stays silent after the error: the TTS cannot say the fallback line either', async () => {
    const spoken: string[] = [];
    const { sent } = await converse(
      (cold) => cold('a', { a: text('hi') }),
      (cold) => {
        const stages = failing('synthesize', 'tts_error')(cold);
        return { ...stages, synthesize: (t) => (spoken.push(t), stages.synthesize(t)) };
      },
      { fallbackLine: 'Sorry, not now.' },
    );
    expect(types(sent)).toEqual([
      [0, 'transcript'],
      [1, 'response'],
      [1, 'response'],
      [1, 'error'],
    ]);
    expect(spoken).toEqual(['Hi.']);
    expect(events(sent).find(([, e]) => e.type === 'error')?.[1]).toMatchObject({ reason: 'tts_error' });
  });
});

describe('the error message of a failed turn', () => {
  it('names the fixes when no LLM can run here, and only that there was no answer otherwise', () => {
    const failed = (reason: string, message: string) =>
      failureMessage({ type: 'failed', stage: 'answer', message, errorId: 'err_1', reason });
    expect(failed('llm_not_configured', 'openai: set OPENAI_API_KEY; local-llama: no model installed')).toEqual({
      type: 'error',
      code: 'turn_failed',
      reason: 'llm_not_configured',
      message: 'the language model is not configured here: openai: set OPENAI_API_KEY; local-llama: no model installed',
    });
    // An upstream's detail (hosts, statuses) stays in the error record, for the operator.
    expect(failed('webhook_http_error', 'HTTP 500 from http://10.0.0.5:8080/hook')).toEqual({
      type: 'error',
      code: 'turn_failed',
      reason: 'webhook_http_error',
      message: 'no answer for this turn',
    });
  });
});
