import { asyncScheduler, config as rxjsConfig } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../machines/session.machine.js';
import { StageFailure } from '../../src/pipeline/reply/stage-failure.js';
import { audioBetween, converse, speech, speechEnd, text, types, type Cold } from '../support/turn-bed.js';

/**
 * The session machine deciding barge-in over a real reply graph, all in virtual time
 * (test/support/turn-bed.ts): what the client is sent and what is recorded.
 */

describe('barge-in: playback pauses at the onset, the words decide', () => {
  /** 'hi' answered with three sentences of 200 ms each; the user talks at 50 until 400. */
  const threeSentences = (overheard: string) => (cold: Cold) => ({
    transcribe: () => cold('10ms a|', { a: overheard }),
    answer: (t: string) => (t === 'hi' ? cold('10ms a|', { a: 'One. Two. Three.' }) : cold('-')),
    synthesize: () => cold('-s|', { s: new Int16Array(200) }),
  });
  const overTheAnswer = (cold: Cold) => cold('a 49ms b 349ms c', { a: text('hi'), b: speech(), c: speechEnd() });

  it('real words over the answer: paused at the onset, interrupted once transcribed; they are the next turn', async () => {
    const { sent, recorded } = await converse(overTheAnswer, threeSentences('Actually, tomorrow.'));
    expect(types(sent)).toEqual([
      [0, 'transcript'],
      [10, 'response'],
      [10, 'response'],
      [11, 'response'],
      [11, 'response'],
      [11, 'audio_start'],
      [50, 'playback_paused'],
      [410, 'interrupted'],
      [410, 'transcript'],
    ]);
    expect(audioBetween(sent, 50, Infinity)).toBe(0);
    expect(recorded).toEqual([
      ['user', 'hi'],
      ['answered', { status: 'complete', text: 'One. Two. Three.', source: 'webhook' }],
      ['played', { id: 'msg_1', interrupted: true, spoken: 'One.' }],
      ['user', 'Actually, tomorrow.'],
    ]);
  });

  it('"uh-huh" over the answer: playback resumes where it paused and the whole answer is heard', async () => {
    const { sent, recorded } = await converse(overTheAnswer, threeSentences('Uh-huh.'));
    expect(types(sent)).toEqual([
      [0, 'transcript'],
      [10, 'response'],
      [10, 'response'],
      [11, 'response'],
      [11, 'response'],
      [11, 'audio_start'],
      [50, 'playback_paused'],
      [410, 'playback_resumed'],
      // 600 ms of speech, paused for 360 ms
      [971, 'audio_end'],
    ]);
    expect(audioBetween(sent, 50, 410)).toBe(0);
    expect(sent.filter(([, e]) => e === 'audio')).toHaveLength(30); // every 20 ms frame of 3 × 200 ms
    expect(recorded).toEqual([
      ['user', 'hi'],
      ['answered', { status: 'complete', text: 'One. Two. Three.', source: 'webhook' }],
      ['played', { id: 'msg_1', interrupted: false, spoken: 'One. Two. Three.' }],
    ]);
  });

  it('a stop word interrupts however short', async () => {
    const { sent } = await converse(
      (cold) => cold('a 49ms b 99ms c', { a: text('hi'), b: speech(), c: speechEnd() }),
      threeSentences('Stop.'),
    );
    expect(types(sent).slice(-3)).toEqual([
      [50, 'playback_paused'],
      [160, 'interrupted'],
      [160, 'transcript'],
    ]);
  });
});

describe('smart endpointing: the reply prepared at the short silence', () => {
  const utterance = (speechEndedAt: number): SessionEvent => ({
    ...speechEnd(),
    startMs: speechEndedAt,
    speechEndedAt,
    decidedAt: speechEndedAt,
  });

  it('used when the turn is confirmed: enhanced answers before the wait is over, and speaks once it is', async () => {
    const answered: number[] = [];
    const { sent, recorded } = await converse(
      (cold) => cold('a', { a: utterance(0) }),
      (cold) => ({
        transcribe: () => cold('100ms a|', { a: 'What time is it?' }),
        answer: () => {
          answered.push(1);
          return cold('50ms a|', { a: 'Noon.' });
        },
        synthesize: () => cold('s|', { s: new Int16Array(100) }),
      }),
      { smart: true, mode: 'enhanced' },
    );
    expect(answered).toHaveLength(1);
    // transcript at 100, answer started at 200 (preemptive_silence_ms after the speech end) and ready
    // at 250, confirmed at 300 (punctuation wait)
    expect(types(sent)).toEqual([
      [300, 'transcript'],
      [300, 'response'],
      [300, 'response'],
      [300, 'audio_start'],
      [400, 'audio_end'],
    ]);
    expect(sent.find(([, e]) => e === 'audio')?.[0]).toBe(300);
    expect(recorded.map(([kind]) => kind)).toEqual(['user', 'answered', 'played']);
  });

  it('the answer starts preemptive_silence_ms after the end of speech, not at the transcript, unless the words are finished', async () => {
    const startedFor = async (text: string) => {
      const started: number[] = [];
      await converse(
        (cold) => cold('a', { a: utterance(0) }),
        (cold) => ({
          transcribe: () => cold('40ms a|', { a: text }),
          answer: () => {
            started.push(asyncScheduler.now());
            return cold('10ms a|', { a: 'Noon.' });
          },
          synthesize: () => cold('s|', { s: new Int16Array(100) }),
        }),
        { smart: true, mode: 'enhanced' },
      );
      return started;
    };
    // an unfinished sentence waits for the preemptive silence
    expect(await startedFor('I would like to know the time')).toEqual([200]);
    // a finished sentence or a whole question (punctuated or not) starts at its transcript
    expect(await startedFor('What time is it?')).toEqual([40]);
    expect(await startedFor('what time do you open tomorrow')).toEqual([40]);
  });

  it('dropped when the user goes on: nothing sent, nothing stored, the webhook called once for the whole utterance', async () => {
    const webhookCalls: string[] = [];
    const { sent, recorded } = await converse(
      (cold) => cold('a 199ms b 99ms c', { a: utterance(0), b: speech(), c: utterance(300) }),
      (cold) => ({
        transcribe: (audio) => cold('100ms a|', { a: audio.length > 160 ? 'My number is 555 0123.' : 'My number is' }),
        answer: (t) => {
          webhookCalls.push(t);
          return cold('a|', { a: 'Thanks.' });
        },
        synthesize: () => cold('s|', { s: new Int16Array(100) }),
      }),
      { smart: true },
    );
    expect(webhookCalls).toEqual(['My number is 555 0123.']);
    expect(sent.filter(([t]) => t < 300)).toEqual([]);
    expect(types(sent)[0]).toEqual([1_500, 'transcript']); // the number wait: 1 200 ms after speech end (300)
    expect(recorded.filter(([kind]) => kind === 'user')).toEqual([['user', 'My number is 555 0123.']]);
  });
});

describe('smart endpointing: a tentative turn that is not one', () => {
  it('nothing intelligible: nothing sent or stored, and the turn number is used by the next turn', async () => {
    const { sent, recorded } = await converse(
      (cold) => cold('a 999ms b', { a: speechEnd(), b: text('hello') }),
      (cold) => ({
        transcribe: () => cold('50ms a|', { a: ' ' }),
        answer: () => cold('a|', { a: 'Hi.' }),
        synthesize: () => cold('s|', { s: new Int16Array(100) }),
      }),
      { smart: true },
    );
    expect(sent.filter(([t]) => t < 1_000)).toEqual([]);
    expect(sent.find(([, e]) => e !== 'audio' && e.type === 'transcript')?.[1]).toEqual({
      type: 'transcript',
      turn: 1,
      text: 'hello',
    });
    expect(recorded.map(([kind]) => kind)).toEqual(['user', 'answered', 'played']);
  });
});

describe('smart endpointing: a tentative turn with no words is judged only once confirmed', () => {
  const segment = (startMs: number, ms: number): SessionEvent => ({
    ...speechEnd(),
    audio: new Int16Array(ms * 16),
    startMs,
    durationMs: ms,
    speechEndedAt: startMs + ms,
    decidedAt: startMs + ms,
  });
  const unheard = new StageFailure('transcribe', 'pocketsphinx: the speech matches none of the expected phrases', {
    id: 'e1',
    type: 'stt_error',
  });

  it('the user goes on: the part without words joins the rest, which is one turn, heard whole', async () => {
    const judged: number[] = [];
    const webhookCalls: string[] = [];
    const { sent } = await converse(
      // "i would like to book a table" … "please": a grammar hears no phrase in the first part alone
      (cold) => cold('a 99ms b 99ms c', { a: segment(0, 10), b: speech(), c: segment(200, 20) }),
      (cold) => ({
        transcribe: (audio) => cold('10ms a|', { a: audio.length > 160 ? 'i would like to book a table please' : '' }),
        answer: (t) => {
          webhookCalls.push(t);
          return cold('a|', { a: 'Sure.' });
        },
        synthesize: () => cold('s|', { s: new Int16Array(100) }),
        noWords: (audio) => {
          judged.push(audio.length);
          return cold<never>('#', undefined, unheard);
        },
      }),
      { smart: true },
    );
    expect(judged).toEqual([]);
    expect(webhookCalls).toEqual(['i would like to book a table please']);
    expect(sent.filter(([, e]) => e !== 'audio' && e.type === 'error')).toEqual([]);
  });

  it('the user stays silent: judged at endpointing_max_ms; words there were not heard is that turn failing', async () => {
    const { sent, recorded } = await converse(
      (cold) => cold('a', { a: segment(0, 10) }),
      (cold) => ({
        transcribe: () => cold('10ms a|', { a: '' }),
        answer: () => cold('a|', { a: 'Sure.' }),
        synthesize: () => cold('s|', { s: new Int16Array(100) }),
        noWords: () => cold<never>('5ms #', undefined, unheard),
      }),
      { smart: true },
    );
    // confirmed at endpointing_max_ms (1 500 ms after the tentative turn began), judged 5 ms later
    expect(sent).toEqual([
      [1_505, { type: 'error', code: 'turn_failed', reason: 'stt_error', message: 'no answer for this turn' }],
    ]);
    expect(recorded).toEqual([['answered', { status: 'failed', text: '', source: 'webhook' }]]);
  });

  it('nothing said (a cough): nothing sent or stored, and the session listens on', async () => {
    const { sent, recorded } = await converse(
      (cold) => cold('a 1999ms b', { a: segment(0, 10), b: text('hello') }),
      (cold) => ({
        transcribe: () => cold('10ms a|', { a: '' }),
        answer: () => cold('a|', { a: 'Hi.' }),
        synthesize: () => cold('s|', { s: new Int16Array(100) }),
        noWords: () => cold<never>('5ms |'),
      }),
      { smart: true },
    );
    expect(sent.filter(([t]) => t < 2_000)).toEqual([]);
    expect(types(sent)[0]).toEqual([2_000, 'transcript']);
    expect(recorded.map(([kind]) => kind)).toEqual(['user', 'answered', 'played']);
  });
});

describe('smart endpointing: a transcription that fails on a tentative turn', () => {
  it('is reported as that turn failing (turn_failed, a failed answer), and the session listens on', async () => {
    const { sent, recorded } = await converse(
      (cold) => cold('a 999ms b', { a: speechEnd(), b: text('hello') }),
      (cold) => ({
        transcribe: () =>
          cold('50ms #', {}, new StageFailure('transcribe', 'STT is down', { id: 'err_1', type: 'stt_error' })),
        answer: () => cold('a|', { a: 'Hi.' }),
        synthesize: () => cold('s|', { s: new Int16Array(100) }),
      }),
      { smart: true },
    );
    expect(types(sent)).toEqual([
      [50, 'error'],
      [1_000, 'transcript'],
      // 'Hi.' is a sentence once the answer has ended (at 1001)
      [1_001, 'response'],
      [1_001, 'response'],
      [1_001, 'audio_start'],
      [1_101, 'audio_end'],
    ]);
    expect(recorded.map(([kind]) => kind)).toEqual(['answered', 'user', 'answered', 'played']);
  });
});

describe('a stage that fails while its turn speaks', () => {
  it('fails that turn alone: turn_failed, nothing thrown out of the graph, and the next turn is answered', async () => {
    const escaped: unknown[] = [];
    const before = rxjsConfig.onUnhandledError;
    rxjsConfig.onUnhandledError = (err) => escaped.push(err);
    try {
      let calls = 0;
      const { sent } = await converse(
        (cold) => cold('a 999ms b', { a: text('first'), b: text('second') }),
        (cold) => ({
          transcribe: () => cold('|'),
          answer: () => cold('a|', { a: 'One. Two.' }),
          // the first sentence's speech fails part-way through (a TTS that cuts its body)
          synthesize: () =>
            ++calls === 1
              ? cold(
                  's 20ms #',
                  { s: new Int16Array(40) },
                  new StageFailure('synthesize', 'TTS cut', { id: 'err_1', type: 'tts_error' }),
                )
              : cold('s|', { s: new Int16Array(100) }),
        }),
      );
      await new Promise((r) => setTimeout(r, 20)); // RxJS reports an unhandled error from a timer
      expect(escaped).toEqual([]);
      const kinds = types(sent).map(([, type]) => type);
      expect(kinds.filter((k) => k === 'error')).toHaveLength(1);
      expect(kinds.slice(kinds.indexOf('error'))).toContain('audio_end');
    } finally {
      rxjsConfig.onUnhandledError = before;
    }
  });
});
