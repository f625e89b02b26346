import { afterAll, beforeAll, expect, it } from 'vitest';
import { HttpReceiver } from '../support/http-receiver.js';
import { startParley, type TestParley } from '../support/parley.js';
import { TestRedis } from '../support/redis-server.js';
import { VoiceClient } from '../support/voice-client.js';

/**
 * A voice session reads its agent's preset once, when it starts. When that read fails, the
 * session fails loudly (an error record, reason `error`) instead of speaking with other providers.
 */

let redis: TestRedis;
let events: HttpReceiver;
let p: TestParley;

beforeAll(async () => {
  redis = await TestRedis.start();
  events = await HttpReceiver.start();
  p = await startParley(redis);
});

afterAll(async () => {
  await p?.close();
  await events?.close();
  await redis?.close();
});

it('a preset that cannot be read ends the session with an error record, not other providers', async () => {
  const preset = await p.request('POST', '/admin/v1/presets', {
    body: { name: 'gone', tts: { provider: 'espeak', model: 'espeak-ng', voice: 'en-us' } },
  });
  const agent = await p.request('POST', '/admin/v1/agents', {
    body: {
      name: 'a',
      mode: 'passthrough',
      webhook_url: 'http://127.0.0.1:9/',
      events_url: events.url,
      preset_id: preset.body.id,
      greeting: 'Hello there.',
    },
  });
  const res = await p.request('POST', '/sdk/v1/session', {
    apiKey: null,
    body: { agent_token: agent.body.agent_token, transport: 'websocket' },
  });
  // The record vanishes behind the API's back (a bad restore, a manual DEL): reads now fail.
  const { store } = p.parley;
  await p.parley.redis.del(store.keys.preset(preset.body.id));

  const client = await VoiceClient.connect(res.body.connection_url, res.body.connection_token);
  await client.untilClosed();
  expect(client.closeCode).toBe(1011);
  expect(client.eventsOf('ended')).toEqual([expect.objectContaining({ reason: 'error' })]);
  expect(client.eventsOf('audio_start')).toEqual([]); // no greeting in another voice
  expect(client.audio).toEqual([]);

  const errors = await p.request('GET', `/admin/v1/errors?session_id=${res.body.session_id}`);
  expect(errors.body.data).toEqual([expect.objectContaining({ type: 'preset_unavailable', agent_id: agent.body.id })]);
  const session = await p.request('GET', `/admin/v1/sessions/${res.body.session_id}`);
  expect(session.body).toMatchObject({ status: 'ended', end_reason: 'error' });
  await events.until(() =>
    events.requests.some((r) => {
      const e = r.json as { type: string; session_id: string; data: { reason: string } };
      return e.type === 'session_end' && e.session_id === res.body.session_id && e.data.reason === 'error';
    }),
  );
});
