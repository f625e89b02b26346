import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readWav } from '../../src/audio/wav.js';
import type { AudioFrame } from '../../src/audio/audio-frame.js';
import { eventually } from '../support/eventually.js';
import { HttpReceiver } from '../support/http-receiver.js';
import { OpenAiAudioServer } from '../support/openai-audio-server.js';
import { startParleyOn } from '../support/parley-topology.js';
import type { TestParley, TestResponse } from '../support/parley.js';
import { RedisSentinelSet, sentinelMasterName } from '../support/redis-topology.js';
import { VoiceClient } from '../support/voice-client.js';

/**
 * Parley on a master + replica watched by three Sentinels (issue 23). The master is killed with
 * SIGKILL while a client keeps writing chat turns and a voice call is live:
 * - during the switch every request answers 503 store_unavailable at once (never a 500 or a hang);
 * - once the Sentinels have promoted the replica the same Parley serves again, with no restart;
 * - no turn acknowledged to the client and no event of one is lost (writes wait for the replica);
 * - the voice call keeps talking across the failover.
 */

const timeoutMs = 1_000; // PARLEY_REDIS_TIMEOUT_MS: a request needing Redis answers within about 1.5 × this
let set: RedisSentinelSet;
let p: TestParley;
let audioApi: OpenAiAudioServer;
let webhook: HttpReceiver;
let events: HttpReceiver;
let hello: AudioFrame;

beforeAll(async () => {
  hello = await readWav(new URL('../fixtures/audio/hello.wav', import.meta.url).pathname);
  set = await RedisSentinelSet.start();
  audioApi = await OpenAiAudioServer.start({ transcribe: (call) => `utterance ${call.index}` });
  webhook = await HttpReceiver.start((req) => ({
    body: { response: `re: ${(req.json as { data: { transcript: string } }).data.transcript}` },
  }));
  events = await HttpReceiver.start(() => ({ status: 204 }));
  p = await startParleyOn({
    REDIS_SENTINELS: set.sentinelList,
    REDIS_SENTINEL_MASTER: sentinelMasterName,
    PARLEY_REDIS_TIMEOUT_MS: String(timeoutMs),
    OPENAI_BASE_URL: audioApi.baseUrl,
    OPENAI_API_KEY: 'sk-test',
    PARLEY_EVENT_RETRY_BASE_MS: '50',
    PARLEY_RATE_LIMIT_BURST: '100000',
    PARLEY_RATE_LIMIT_RPM: '1000000',
  });
}, 60_000);
afterAll(async () => {
  await p?.close();
  await Promise.all([audioApi?.close(), webhook?.close(), events?.close()]);
  await set?.close();
}, 60_000);

interface Attempt {
  text: string;
  /** ms since the master was killed (negative: before). */
  at: number;
  ms: number;
  status: number;
  code?: string;
}

/** A progress line when PARLEY_TEST_LOG is set (with Parley's own log at that level). */
function step(what: string): void {
  if (process.env['PARLEY_TEST_LOG'] !== undefined) console.info(`${Math.round(performance.now())} ms: ${what}`);
}

/** Every message of a conversation, newest page first (pages of 500 by `messages_cursor`). */
async function allMessages(conversationId: string): Promise<{ text: string }[]> {
  const messages: { text: string }[] = [];
  let before: string | undefined;
  do {
    const query = before === undefined ? '' : `?before=${encodeURIComponent(before)}`;
    const page = await p.request('GET', `/admin/v1/conversations/${conversationId}${query}`);
    expect(page.status).toBe(200);
    messages.push(...(page.body.messages as { text: string }[]));
    before = (page.body.messages_cursor as string | null) ?? undefined;
  } while (before !== undefined);
  return messages;
}

function chat(token: string, message: string, sessionId: string): Promise<TestResponse> {
  return p.request('POST', '/sdk/v1/chat', {
    body: { agent_token: token, message, session_id: sessionId },
    apiKey: null,
  });
}

describe('Parley on Redis Sentinel, master killed', () => {
  it('answers 503 during the switch, recovers without a restart, loses no acknowledged turn or event, keeps a call talking', async () => {
    const preset = await p.request('POST', '/admin/v1/presets', {
      body: {
        name: 'voice',
        stt: { provider: 'openai', model: 'whisper-1', language: 'en' },
        tts: { provider: 'espeak', model: 'espeak-ng', voice: 'en-us' },
      },
    });
    const agent = await p.request('POST', '/admin/v1/agents', {
      body: {
        name: 'sentinel agent',
        mode: 'passthrough',
        webhook_url: webhook.url,
        events_url: `${events.url}/events`,
        preset_id: preset.body.id,
        transcription_silence_ms: 200,
      },
    });
    expect(agent.status).toBe(201);
    const token = agent.body.agent_token as string;
    const first = await p.request('POST', '/sdk/v1/chat', {
      body: { agent_token: token, message: 'm0' },
      apiKey: null,
    });
    expect(first.status).toBe(200);
    const chatSession = first.body.session_id as string;
    step('chat ok');

    // A live voice call with one turn before the failover.
    const grant = await p.request('POST', '/sdk/v1/session', {
      apiKey: null,
      body: { agent_token: token, user_id: 'caller', transport: 'websocket' },
    });
    expect(grant.status).toBe(201);
    const voice = await VoiceClient.connect(grant.body.connection_url as string, grant.body.connection_token as string);
    await voice.untilEvent('ready');
    await voice.stream(hello, { speed: 4 });
    await voice.untilAnswer();
    await voice.untilEvent('audio_end');
    step('voice turn 1');

    // A client writing turns one after another, across the failover, until 1 s of successes after it.
    const attempts: Attempt[] = [];
    let killedAt = Number.POSITIVE_INFINITY;
    let recoveredAt: number | undefined;
    const writer = (async () => {
      for (let i = 1; ; i++) {
        const start = performance.now();
        const res = await chat(token, `m${i}`, chatSession);
        const end = performance.now();
        attempts.push({
          text: `m${i}`,
          at: start - killedAt,
          ms: end - start,
          status: res.status,
          code: (res.body as { error?: { code: string } }).error?.code,
        });
        if (res.status === 200 && end > killedAt && recoveredAt === undefined && attempts.some((a) => a.status !== 200))
          recoveredAt = end;
        if (recoveredAt !== undefined && end - recoveredAt > 1_000) return;
        if (end - killedAt > 20_000) return; // no recovery: the assertions below say so
        if (res.status !== 200) await new Promise((r) => setTimeout(r, 50));
      }
    })();
    await new Promise((r) => setTimeout(r, 300));
    const oldMaster = await set.masterPort();
    killedAt = performance.now();
    await set.killMaster();
    step('killed');

    // The call's next turn is spoken while the master is gone.
    await voice.stream(hello, { speed: 4 });
    step('voice streamed');
    await writer;
    step(`writer done ${JSON.stringify(attempts.filter((a) => a.status !== 200).slice(0, 3))}`);
    expect(await set.masterPort()).not.toBe(oldMaster);

    const failed = attempts.filter((a) => a.status !== 200);
    const window =
      failed.length === 0 ? 0 : Math.max(...failed.map((a) => a.at + a.ms)) - Math.min(...failed.map((a) => a.at));
    console.info(
      `sentinel failover: ${failed.length} requests refused over ${Math.round(window)} ms; ` +
        `first success ${Math.round((recoveredAt ?? Number.NaN) - killedAt)} ms after the kill; slowest answer ${Math.round(Math.max(...attempts.map((a) => a.ms)))} ms`,
    );
    // 503 store_unavailable during the switch, each answered fast; nothing else.
    expect(failed.length).toBeGreaterThan(0);
    expect(failed.filter((a) => a.status !== 503 || a.code !== 'store_unavailable')).toEqual([]);
    expect(Math.max(...attempts.map((a) => a.ms))).toBeLessThan(1.5 * timeoutMs + 500);
    // The switch: Sentinels' down-after (1 s) + election + at most one poll (200 ms) + connect.
    expect(recoveredAt).toBeDefined();
    expect(recoveredAt! - killedAt).toBeLessThan(8_000);

    // The call kept talking: its turn spoken during the failover was answered, and another after it.
    await voice.untilAnswer();
    const answersBefore = voice.eventsOf('response').filter((e) => e.final).length;
    await voice.untilEvent('audio_end');
    await voice.stream(hello, { speed: 4 });
    await voice.until(
      () => voice.eventsOf('response').filter((e) => e.final).length > answersBefore,
      20_000,
      'a third answer',
    );
    expect(voice.closeCode).toBeNull();

    step('voice turn 3');
    // No acknowledged turn lost: every message answered 200 is in the conversation on the new master.
    const session = await p.request('GET', `/admin/v1/sessions/${chatSession}`);
    expect(session.status).toBe(200);
    const stored = new Set((await allMessages(session.body.conversation_id as string)).map((m) => m.text));
    const acknowledged = ['m0', ...attempts.filter((a) => a.status === 200).map((a) => a.text)];
    expect(acknowledged.filter((t) => !stored.has(t) || !stored.has(`re: ${t}`))).toEqual([]);

    // No event lost: one llm_response per acknowledged turn reaches the receiver (at least once).
    await eventually(
      () =>
        new Set(
          events.requests
            .map((r) => r.json as { id: string; type: string; session_id: string })
            .filter((e) => e.type === 'llm_response' && e.session_id === chatSession)
            .map((e) => e.id),
        ).size,
      (n) => n >= acknowledged.length,
      { what: `an llm_response event for each of the ${acknowledged.length} acknowledged turns`, timeoutMs: 20_000 },
    );

    // The voice call's turns are recorded too (their writes are retried across the outage).
    voice.close();
    await eventually(
      () => p.request('GET', `/admin/v1/sessions/${grant.body.session_id}`),
      (s) => s.body.status === 'ended',
      { what: 'the voice session ended', timeoutMs: 20_000 },
    );
    const voiceSession = await p.request('GET', `/admin/v1/sessions/${grant.body.session_id}`);
    expect((await allMessages(voiceSession.body.conversation_id as string)).length).toBeGreaterThanOrEqual(6);
  }, 60_000);
});
