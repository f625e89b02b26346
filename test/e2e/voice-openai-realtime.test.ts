/**
 * Voice sessions whose preset hears with `openai-realtime`, end to end: flite speech over the
 * WebSocket transport at real-time pace, the real Silero VAD, each utterance streamed to a fake of
 * OpenAI's Realtime transcription API (a real WebSocket server speaking its protocol) while it is
 * spoken, the transcript at the operator's webhook. A failure mid-stream fails that turn alone;
 * a caller hanging up mid-utterance closes the upstream session cleanly.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import { FakeOpenAiRealtime, serverError, type ScriptedUtterance } from '../support/fake-openai-realtime.js';
import { fliteScript } from '../support/flite-speech.js';
import { voiceBed } from '../support/voice-bed.js';

let upstream: FakeOpenAiRealtime;
/** What the fake answers, per agent: by the prompt its expected phrases make. */
const scripts = new Map<string, ScriptedUtterance[]>();

beforeAll(async () => {
  upstream = await FakeOpenAiRealtime.start({
    apiKey: 'sk-realtime-test',
    script: (c) => scripts.get(promptOf(c.session)) ?? [],
  });
});
afterAll(async () => {
  await upstream?.close();
});
const bed = voiceBed({
  env: () => ({ OPENAI_API_KEY: 'sk-realtime-test', PARLEY_OPENAI_REALTIME_URL: upstream.url }),
});

function promptOf(session: Record<string, unknown> | null): string {
  const input = (session?.['audio'] as { input?: { transcription?: { prompt?: string } } } | undefined)?.input;
  return input?.transcription?.prompt ?? '';
}

/** A session of a passthrough agent that hears with openai-realtime; `phrase` is its one expected phrase. */
async function session(phrase: string, script: ScriptedUtterance[]) {
  scripts.set(phrase, script);
  const stt = { provider: 'openai-realtime', model: 'gpt-4o-mini-transcribe', language: 'en-US' };
  const agent = await bed.agent(
    { name: `realtime ${phrase}`, stt },
    { name: phrase, greeting: null, expected_phrases: [phrase] },
  );
  expect(agent.warnings).toEqual([]);
  return bed.connect(agent);
}

const transcriptsOf = (sessionId: string) => bed.transcripts(sessionId);

const connectionsOf = (phrase: string) => upstream.connections.filter((c) => promptOf(c.session) === phrase);

describe('voice on openai-realtime (real speech, the Realtime protocol)', () => {
  it('each utterance is streamed as it is spoken, committed at its end, and its transcript reaches the webhook', async () => {
    const heard = ['I would like a table for four on Friday.', 'What time do you open?'];
    const { client, sessionId } = await session('table for four', [...heard]);
    const said = ['i would like a table for four on friday evening', 'what time do you open tomorrow'];
    await client.stream({ samples: fliteScript('slt', 300, said[0]!, 1500, said[1]!, 1500), sampleRate: 16_000 });
    await client.untilAnswer(2, 30_000);
    expect(transcriptsOf(sessionId)).toEqual(heard);
    expect(client.eventsOf('transcript').map((e) => e.text)).toEqual(heard);

    const used = connectionsOf('table for four').filter((c) => c.committed.length > 0);
    expect(used).toHaveLength(2);
    for (const c of used) {
      expect(c.headers.authorization).toBe('Bearer sk-realtime-test');
      expect(c.session).toMatchObject({
        type: 'transcription',
        audio: {
          input: {
            format: { type: 'audio/pcm', rate: 24_000 },
            transcription: { model: 'gpt-4o-mini-transcribe', language: 'en', prompt: 'table for four' },
            turn_detection: null,
          },
        },
      });
      // appended in the VAD's windows while the words were spoken, then one commit: over a second of 24 kHz speech
      expect(c.appends).toBeGreaterThan(30);
      expect(c.committed).toHaveLength(1);
      expect(c.committed[0]!.length).toBeGreaterThan(24_000);
      expect(c.closed).toEqual({ code: 1000, byClient: true });
    }
  });

  it('an error mid-stream fails that turn alone: recorded, the session keeps listening, another session is heard', async () => {
    const failure: ScriptedUtterance = { fault: 'error', error: serverError, afterAppends: 3 };
    const broken = await session('broken line', [failure, 'Can I speak to a person?']);
    const healthy = await session('healthy line', ['Can I speak to a person?']);
    const speech = { samples: fliteScript('rms', 300, 'can i speak to a person please', 1500), sampleRate: 16_000 };
    await Promise.all([broken.client.stream(speech), healthy.client.stream(speech)]);
    await broken.client.untilEvent('error', 1, 30_000);
    expect(broken.client.eventsOf('error')[0]).toMatchObject({ code: 'turn_failed', reason: 'stt_error' });
    expect((await broken.client.untilEvent('audio_end', 1, 30_000)).turn).toBe(1); // the fallback line
    await healthy.client.untilAnswer(1, 30_000);
    expect(transcriptsOf(healthy.sessionId)).toEqual(['Can I speak to a person?']);
    const errors = await bed.p.request('GET', `/admin/v1/errors?session_id=${broken.sessionId}`);
    expect(errors.body.data).toHaveLength(1);
    expect(errors.body.data[0]).toMatchObject({ type: 'stt_error', details: { provider: 'openai-realtime' } });
    expect(errors.body.data[0].message).toBe(
      'openai-realtime: the server reported an error: server_error (The server had an error while processing your request. Sorry about that!)',
    );
    // not sent again (no retry within a turn): one upstream session, which Parley closed
    expect(connectionsOf('broken line')).toHaveLength(1);
    expect(connectionsOf('broken line')[0]!.closed).toEqual({ code: 1000, byClient: true });
    // still listening: the next utterance is heard
    await broken.client.stream(speech);
    await broken.client.untilAnswer(1, 30_000);
    expect(transcriptsOf(broken.sessionId)).toEqual(['Can I speak to a person?']);
    expect(broken.client.eventsOf('ended')).toHaveLength(0);
  });

  it('a caller hanging up mid-utterance clears and closes its upstream session; nothing is recorded as failed', async () => {
    const { client, sessionId } = await session('hang up', ['never finished']);
    const sentence = fliteScript('slt', 300, 'i would like to book a table for four people on friday evening');
    const streaming = client.stream({ samples: sentence.subarray(0, 300 * 16 + 16_000), sampleRate: 16_000 });
    await eventually(
      () => connectionsOf('hang up')[0]?.appends ?? 0,
      (n) => n > 5,
      { what: 'audio upstream' },
    );
    await streaming;
    client.close();
    const [c] = await eventually(
      () => connectionsOf('hang up'),
      (cs) => cs.length > 0 && cs.every((x) => x.closed !== null),
      { what: 'the upstream session closed' },
    );
    expect(c!.closed).toEqual({ code: 1000, byClient: true });
    expect(c!.received).toContain('input_audio_buffer.clear');
    expect(c!.received).not.toContain('input_audio_buffer.commit');
    await eventually(
      async () => (await bed.p.request('GET', `/admin/v1/sessions/${sessionId}`)).body.status,
      (status) => status === 'ended',
      { what: 'the session ended' },
    );
    expect((await bed.p.request('GET', `/admin/v1/errors?session_id=${sessionId}`)).body.data).toEqual([]);
    expect(upstream.open).toBe(0);
  });

  it('is listed as configured, and /health/providers opens a session to check it', async () => {
    const available = await bed.p.request('GET', '/admin/v1/presets/available?capability=stt');
    expect(available.body.data.find((x: { provider: string }) => x.provider === 'openai-realtime')).toMatchObject({
      kind: 'remote',
      configured: true,
      reason: null,
      default_model: 'gpt-4o-mini-transcribe',
      any_model: true,
    });
    const health = await bed.p.request('GET', '/health/providers', { apiKey: null });
    expect(health.body.providers.find((x: { provider: string }) => x.provider === 'openai-realtime')).toMatchObject({
      capability: 'stt',
      status: 'ok',
      latency_ms: expect.any(Number),
    });
  });
});
