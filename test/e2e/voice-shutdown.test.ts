import { afterAll, beforeAll, expect, it } from 'vitest';
import { HttpReceiver } from '../support/http-receiver.js';
import { startParley, type TestParley } from '../support/parley.js';
import { TestRedis } from '../support/redis-server.js';
import { VoiceClient } from '../support/voice-client.js';

/** What SIGTERM does (main.ts calls Parley.close()): live voice sessions end cleanly first. */

let redis: TestRedis;
let events: HttpReceiver;

beforeAll(async () => {
  redis = await TestRedis.start();
  events = await HttpReceiver.start();
});

afterAll(async () => {
  await events?.close();
  await redis?.close();
});

it('shutdown ends every live voice session with reason shutdown, and their session_end events still go out', async () => {
  const p: TestParley = await startParley(redis);
  const agent = await p.request('POST', '/admin/v1/agents', {
    body: { name: 'a', mode: 'passthrough', webhook_url: 'http://127.0.0.1:9/', events_url: events.url },
  });
  const clients: { client: VoiceClient; sessionId: string }[] = [];
  for (let i = 0; i < 3; i++) {
    const res = await p.request('POST', '/sdk/v1/session', {
      apiKey: null,
      body: { agent_token: agent.body.agent_token, transport: 'websocket' },
    });
    const client = await VoiceClient.connect(res.body.connection_url, res.body.connection_token);
    await client.untilEvent('ready');
    clients.push({ client, sessionId: res.body.session_id });
  }
  expect(p.parley.services.supervisor.size).toBe(3);

  await p.close();

  for (const { client } of clients) {
    await client.untilClosed();
    expect(client.eventsOf('ended')[0]).toMatchObject({ reason: 'shutdown' });
  }
  // A new instance sees the records final and delivers whatever events were still queued.
  const next = await startParley(redis);
  try {
    for (const { sessionId } of clients) {
      const session = await next.request('GET', `/admin/v1/sessions/${sessionId}`);
      expect(session.body).toMatchObject({ status: 'ended', end_reason: 'shutdown' });
    }
    await events.until(
      () => events.requests.filter((r) => (r.json as { type: string }).type === 'session_end').length === 3,
      15_000,
    );
  } finally {
    await next.close();
  }
});
