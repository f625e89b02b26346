import type { ChildProcess } from 'node:child_process';
import { createClient } from 'redis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { OutboxEntry } from '../../src/schemas/outbox-entry.js';
import { HttpReceiver } from '../support/http-receiver.js';
import { startParleyProcess, type ParleyProcess } from '../support/main-process.js';
import { startParley, testAdminKey } from '../support/parley.js';
import { TestRedis } from '../support/redis-server.js';

/**
 * Issue 8: at-least-once across kill -9 between storing a record and queueing its event. A real
 * Parley process (src/main.ts) with the test hook PARLEY_TEST_CRASH_AFTER_RECORD kills itself with
 * SIGKILL right after the atomic write of the record and its outbox entry, before the relay ran;
 * the next Parley on the same Redis delivers the event to a real receiver, with the same id.
 */

let redis: TestRedis;
let events: HttpReceiver;
let webhook: HttpReceiver;
const children: ChildProcess[] = [];
let client: ReturnType<typeof createClient>;

beforeAll(async () => {
  redis = await TestRedis.start();
  client = createClient({ url: redis.url });
  await client.connect();
  events = await HttpReceiver.start(() => ({ status: 204 }));
  webhook = await HttpReceiver.start(() => ({ body: { response: 'stored, then killed' } }));
});
afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  client?.destroy();
  await events?.close();
  await webhook?.close();
  await redis?.close();
});
beforeEach(async () => {
  await redis.flush();
  events.requests.length = 0;
});

/** A Parley process on the test's Redis that kills itself after storing a `crashAfter` record. */
async function startMain(crashAfter: string): Promise<ParleyProcess> {
  const main = await startParleyProcess(redis, {
    PARLEY_TEST_CRASH_AFTER_RECORD: crashAfter,
    // One process: the crash hook kills the process that serves (a cluster would restart the worker).
    PARLEY_WORKERS: '1',
    // Without a wake from a write, the relay would not look again before the kill.
    PARLEY_EVENT_RELAY_INTERVAL_MS: '600000',
  });
  children.push(main.child);
  return main;
}

async function outbox(): Promise<OutboxEntry[]> {
  const raw = await client.lRange('parley:events:outbox', 0, -1);
  return raw.map((e) => JSON.parse(e) as OutboxEntry);
}

describe('kill -9 between the store and the queue', () => {
  for (const type of ['session_start', 'llm_response'] as const) {
    it(`${type}: written with its record, delivered by the next process with the same id`, async () => {
      const main = await startMain(type);
      const created = await fetch(`${main.url}/admin/v1/agents`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-API-Key': testAdminKey },
        body: JSON.stringify({
          name: 'Crashing',
          mode: 'passthrough',
          webhook_url: `${webhook.url}/hook`,
          events_url: `${events.url}/events`,
        }),
      });
      expect(created.status).toBe(201);
      const agent = (await created.json()) as { id: string; agent_token: string };
      const chat = fetch(`${main.url}/sdk/v1/chat`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ agent_token: agent.agent_token, message: 'hello' }),
      });
      await expect(chat).rejects.toThrow(); // the process died mid-request
      expect(await main.exited).toBe('SIGKILL');

      // The record and its event are both in Redis, the event still in the outbox. Its job may or
      // may not be in the delivery queue: a relay pass woken by the session's earlier record loops
      // until the outbox is empty, and can enqueue this entry in the moment before the kill (the
      // entry leaves the outbox only after that). Either way the next process delivers it once.
      const left = (await outbox()).filter((e) => e.envelope.type === type);
      expect(left).toHaveLength(1);
      const eventId = left[0]!.envelope.id;
      const sessionId = left[0]!.envelope.session_id;
      expect(await client.hGet(`parley:{session:${sessionId}}`, 'status')).toBe('active');

      const next = await startParley(redis);
      try {
        await events.until(() => events.requests.some((r) => r.headers['x-parley-event-id'] === eventId), 15_000);
        const delivered = events.requests.find((r) => r.headers['x-parley-event-id'] === eventId)!;
        expect(delivered.json).toMatchObject({ id: eventId, type, session_id: sessionId, agent_id: agent.id });
        if (type === 'llm_response') {
          expect(delivered.json).toMatchObject({ data: { response: 'stored, then killed', channel: 'chat' } });
          const conversation = await next.request('GET', `/admin/v1/conversations?session_id=${sessionId}`);
          const full = await next.request('GET', `/admin/v1/conversations/${conversation.body.data[0].id}`);
          expect(full.body.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'agent']);
        }
        expect(await outbox()).toEqual([]);
        // once: the job id is the event id, so an entry enqueued twice is one job
        await new Promise((r) => setTimeout(r, 500));
        expect(events.requests.filter((r) => r.headers['x-parley-event-id'] === eventId)).toHaveLength(1);
      } finally {
        await next.close();
      }
    }, 60_000);
  }
});
