/**
 * A voice session on Deepgram end to end: flite speech over the WebSocket transport at real-time
 * pace, the real Silero VAD, one `/v1/listen` stream per utterance to a local server speaking
 * Deepgram's protocol (its transcripts from a script, punctuated as Deepgram writes them), the
 * operator's webhook as a real HTTP server. Deepgram's faults (a socket closed mid-utterance, a
 * refused key) fail only their turn; a caller hanging up mid-utterance closes the socket cleanly.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import { FakeDeepgram } from '../support/fake-deepgram.js';
import { fliteScript } from '../support/flite-speech.js';
import { voiceBed } from '../support/voice-bed.js';

const key = 'dg-e2e-key';
let deepgram: FakeDeepgram;

beforeAll(async () => {
  deepgram = await FakeDeepgram.start({ apiKey: key, resultDelayMs: 150 });
});
afterAll(async () => {
  await deepgram?.close();
});
const bed = voiceBed({ env: () => ({ PARLEY_DEEPGRAM_API_KEY: key, PARLEY_DEEPGRAM_URL: deepgram.url }) });
beforeEach(() => {
  deepgram.apiKey = key;
  deepgram.reset();
});

/**
 * A passthrough agent on Deepgram, and a connected session. Segments end at 250 ms of silence
 * (not the default 64), so each of flite's phrases is one utterance, one stream, one script line.
 */
async function session(agent: Record<string, unknown> = {}) {
  const stt = { provider: 'deepgram', model: 'nova-3', language: 'en-US' };
  const created = await bed.agent(
    { name: 'deepgram', stt },
    { greeting: null, transcription_silence_ms: 250, ...agent },
  );
  return bed.connect(created);
}

const transcriptsOf = (sessionId: string) => bed.transcripts(sessionId);

const twoPhrases = () => ({
  samples: fliteScript('slt', 400, 'i would like a table', 1000, 'for two people tonight', 2000),
  sampleRate: 16_000,
});

describe('voice on Deepgram (real speech, Deepgram protocol)', () => {
  it("the webhook gets Deepgram's punctuated words; a stream per utterance, the agent's phrases as keyterms, every socket closed", async () => {
    deepgram.reset(['Do you have a table for two tonight?', 'At eight, please.']);
    const { client, sessionId } = await session({ expected_phrases: ['table for two'] });
    const speech = fliteScript('slt', 400, 'do you have a table for two tonight', 2000, 'at eight please', 2000);
    await client.stream({ samples: speech, sampleRate: 16_000 });
    await client.untilAnswer(2, 30_000);
    expect(transcriptsOf(sessionId)).toEqual(['Do you have a table for two tonight?', 'At eight, please.']);
    expect(client.eventsOf('transcript').map((e) => e.text)).toEqual(transcriptsOf(sessionId));
    const finished = deepgram.streams.filter((s) => s.transcript !== null);
    expect(finished).toHaveLength(2);
    for (const stream of finished) {
      expect(stream.controls).toEqual(['Finalize', 'CloseStream']);
      expect(stream.params.get('model')).toBe('nova-3');
      expect(stream.params.get('language')).toBe('en-US');
      expect(stream.params.getAll('keyterm')).toEqual(['table for two']);
      expect(stream.audioMs).toBeGreaterThan(500);
    }
    await eventually(
      () => deepgram.open.length,
      (n) => n === 0,
      { what: 'every Deepgram socket closed' },
    );
  });

  it('punctuation decides the wait: a finished sentence ends the turn at a pause, a trailing "and" keeps the floor', async () => {
    // The same speech, a 1 s pause mid-way. "…table." waits 300 ms: two turns.
    deepgram.reset(['I would like a table.', 'For two people tonight.']);
    const finished = await session();
    await finished.client.stream(twoPhrases());
    await finished.client.untilAnswer(2, 30_000);
    expect(transcriptsOf(finished.sessionId)).toEqual(['I would like a table.', 'For two people tonight.']);

    // "…table and" waits 1.5 s: the pause is mid-thought, one turn, one webhook call.
    deepgram.reset(['I would like a table and', 'for two people tonight.']);
    const open = await session();
    await open.client.stream(twoPhrases());
    await open.client.untilAnswer(1, 30_000);
    await new Promise((r) => setTimeout(r, 500));
    expect(transcriptsOf(open.sessionId)).toEqual(['I would like a table and for two people tonight.']);
  });

  it('a socket Deepgram closes mid-utterance (1011) fails that turn alone; the next turn is heard', async () => {
    deepgram.reset(['At eight, please.']);
    deepgram.fail({ kind: 'close', afterMs: 300, code: 1011, reason: 'NET-0000' });
    const { client, sessionId } = await session();
    const speech = fliteScript('slt', 400, 'do you have a table for two tonight', 2000, 'at eight please', 2000);
    await client.stream({ samples: speech, sampleRate: 16_000 });
    await client.untilAnswer(1, 20_000);
    expect(client.eventsOf('error')).toMatchObject([{ code: 'turn_failed', reason: 'stt_error' }]);
    expect(transcriptsOf(sessionId)).toEqual(['At eight, please.']);
    const errors = await bed.p.request('GET', `/admin/v1/errors?session_id=${sessionId}`);
    expect(errors.body.data).toHaveLength(1);
    expect(errors.body.data[0]).toMatchObject({ type: 'stt_error', details: { provider: 'deepgram' } });
    expect(errors.body.data[0].message).toBe('deepgram: the stream was closed mid-utterance (1011 NET-0000)');
    expect(deepgram.streams[0]).toMatchObject({ serverClose: { code: 1011, reason: 'NET-0000' }, transcript: null });
    // the failed turn said its fallback line (which the next phrase talked over); the session goes on
    expect(client.eventsOf('audio_start').map((e) => e.turn)).toEqual([1, 2]);
    expect(client.eventsOf('ended')).toHaveLength(0);
  });

  it('a refused key fails the turn with the reason (401), not the session; the key fixed, the next turn works', async () => {
    deepgram.reset(['At eight, please.']);
    deepgram.apiKey = 'rotated-key';
    const { client, sessionId } = await session();
    const phrase = { samples: fliteScript('slt', 400, 'at eight please', 2000), sampleRate: 16_000 };
    await client.stream(phrase);
    await client.untilEvent('error', 1, 30_000);
    expect(client.eventsOf('error')[0]).toMatchObject({ code: 'turn_failed', reason: 'stt_error' });
    const errors = await bed.p.request('GET', `/admin/v1/errors?session_id=${sessionId}`);
    expect(errors.body.data[0].message).toBe(
      'deepgram: the handshake was refused: HTTP 401: Invalid credentials.; check PARLEY_DEEPGRAM_API_KEY',
    );
    expect(deepgram.refusals[0]).toMatchObject({ status: 401, authorization: `Token ${key}` });
    deepgram.apiKey = key;
    await client.stream(phrase);
    await client.untilAnswer(1, 30_000);
    expect(transcriptsOf(sessionId)).toEqual(['At eight, please.']);
  });

  it('a caller hanging up mid-utterance closes the socket cleanly: no transcript, no error', async () => {
    deepgram.reset(['Never finished.']);
    const { client, sessionId } = await session();
    const half = fliteScript('slt', 400, 'i would like to book a table for', 0);
    await client.stream({ samples: half, sampleRate: 16_000 });
    await eventually(
      () => deepgram.streams.length,
      (n) => n > 0,
    );
    client.close();
    await eventually(
      () => deepgram.streams.every((s) => s.closed),
      (closed) => closed,
      { what: 'the Deepgram socket closed' },
    );
    expect(deepgram.streams.map((s) => s.clientClose?.code)).toEqual(deepgram.streams.map(() => 1000));
    expect(deepgram.streams.flatMap((s) => s.controls)).toEqual([]);
    const ended = await eventually(
      () => bed.p.request('GET', `/admin/v1/sessions/${sessionId}`),
      (s) => s.body.status === 'ended',
    );
    expect(ended.body.end_reason).toBe('client_hangup');
    expect((await bed.p.request('GET', `/admin/v1/errors?session_id=${sessionId}`)).body.data).toEqual([]);
    expect(transcriptsOf(sessionId)).toEqual([]);
  });

  it('an operator picks it in a preset; presets/available and /health/providers say it works here', async () => {
    const available = await bed.p.request('GET', '/admin/v1/presets/available?capability=stt');
    expect(available.body.data.find((a: { provider: string }) => a.provider === 'deepgram')).toMatchObject({
      configured: true,
      default_model: 'nova-3',
      any_model: true,
    });
    const health = await bed.p.request('GET', '/health/providers', { apiKey: null });
    expect(health.body.providers.find((c: { provider: string }) => c.provider === 'deepgram')).toMatchObject({
      capability: 'stt',
      status: 'ok',
    });
  });
});
