import { describe, expect, it } from 'vitest';
import { NotFoundError } from '../../src/errors/app-errors.js';
import { sessionEndReasons, type Session } from '../../src/schemas/session.js';
import { parleyForFile } from '../support/parley.js';
import { createAgent } from '../support/agents.js';

const bed = parleyForFile();

const unknownSession = 'ses_01jd3n6v8m0000000000000000';
const unknownAgent = 'agt_01jd3n6v8m0000000000000000';
const hour = 3_600_000;

function ids(body: { data: { id: string }[] }): string[] {
  return body.data.map((s) => s.id);
}

describe('GET /admin/v1/sessions', () => {
  it('lists newest first and pages with the cursor', async () => {
    const agent = (await createAgent(bed.p)).id;
    const base = Date.now() - 10 * hour;
    const created: Session[] = [];
    for (let i = 0; i < 5; i++) {
      created.push(
        await bed.p.parley.store.sessions.create({ agent_id: agent, type: 'chat', transport: 'chat' }, base + i * 1000),
      );
    }
    const newestFirst = created.map((s) => s.id).reverse();
    const page1 = await bed.p.request('GET', '/admin/v1/sessions?limit=2');
    expect(page1.status).toBe(200);
    expect(ids(page1.body)).toEqual(newestFirst.slice(0, 2));
    const page2 = await bed.p.request('GET', `/admin/v1/sessions?limit=2&cursor=${page1.body.next_cursor}`);
    expect(ids(page2.body)).toEqual(newestFirst.slice(2, 4));
    const page3 = await bed.p.request('GET', `/admin/v1/sessions?limit=2&cursor=${page2.body.next_cursor}`);
    expect(ids(page3.body)).toEqual(newestFirst.slice(4));
    expect(page3.body.next_cursor).toBeNull();
    expect(page1.body.data[0]).toMatchObject({
      agent_id: agent,
      type: 'chat',
      transport: 'chat',
      status: 'active',
      user_id: null,
      room: null,
      turns: 0,
      ended_at: null,
      end_reason: null,
      duration_ms: null,
      metadata: {},
    });
    expect(page1.body.data[0].conversation_id).toMatch(/^cnv_/);
  });

  it('filters by agent, status, type, user and time', async () => {
    const a = (await createAgent(bed.p, { name: 'a' })).id;
    const b = (await createAgent(bed.p, { name: 'b' })).id;
    const base = Date.now() - 10 * hour;
    const s = bed.p.parley.store.sessions;
    const chatA = await s.create({ agent_id: a, type: 'chat', transport: 'chat', user_id: 'alice' }, base);
    const voiceA = await s.create({ agent_id: a, type: 'voice', transport: 'websocket', room: 'room-1' }, base + 1000);
    const chatB = await s.create({ agent_id: b, type: 'chat', transport: 'chat', user_id: 'alice' }, base + 2000);
    await s.end(chatA.id, 'client_hangup', base + 5000);

    const byAgent = await bed.p.request('GET', `/admin/v1/sessions?agent_id=${a}`);
    expect(ids(byAgent.body)).toEqual([voiceA.id, chatA.id]);
    const ended = await bed.p.request('GET', '/admin/v1/sessions?status=ended');
    expect(ids(ended.body)).toEqual([chatA.id]);
    const active = await bed.p.request('GET', '/admin/v1/sessions?status=active');
    expect(ids(active.body)).toEqual([chatB.id, voiceA.id]);
    const voice = await bed.p.request('GET', '/admin/v1/sessions?type=voice');
    expect(ids(voice.body)).toEqual([voiceA.id]);
    expect(voice.body.data[0]).toMatchObject({ transport: 'websocket', room: 'room-1' });
    const alice = await bed.p.request('GET', '/admin/v1/sessions?user_id=alice');
    expect(ids(alice.body)).toEqual([chatB.id, chatA.id]);
    const aliceOnA = await bed.p.request('GET', `/admin/v1/sessions?user_id=alice&agent_id=${a}`);
    expect(ids(aliceOnA.body)).toEqual([chatA.id]);
    const from = new Date(base + 1000).toISOString();
    const to = new Date(base + 1500).toISOString();
    const window = await bed.p.request('GET', `/admin/v1/sessions?from=${from}&to=${to}`);
    expect(ids(window.body)).toEqual([voiceA.id]);
  });

  it('rejects bad limits, filters and cursors with 400', async () => {
    for (const query of [
      'limit=0',
      'limit=101',
      'limit=abc',
      'status=done',
      'type=video',
      'agent_id=nope',
      'from=yesterday',
      'cursor=%21%21',
    ]) {
      const res = await bed.p.request('GET', `/admin/v1/sessions?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
      expect(res.body.error.details.length).toBeGreaterThan(0);
    }
  });
});

describe('GET /admin/v1/sessions/:id', () => {
  it('returns the session with its conversation', async () => {
    const agent = (await createAgent(bed.p)).id;
    const session = await bed.p.parley.store.sessions.create({
      agent_id: agent,
      type: 'voice',
      transport: 'livekit',
      user_id: 'u-1',
      room: 'r-1',
      metadata: { plan: 'pro', seats: 3 },
    });
    await bed.p.parley.store.conversations.appendMessage(session.conversation_id, { role: 'user', text: 'hi' });
    const res = await bed.p.request('GET', `/admin/v1/sessions/${session.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      ...session,
      conversation: { id: session.conversation_id, session_id: session.id, message_count: 1 },
    });
  });

  it('answers 404 for an unknown id and 400 for junk', async () => {
    const nf = await bed.p.request('GET', `/admin/v1/sessions/${unknownSession}`);
    expect(nf.status).toBe(404);
    expect(nf.body.error.code).toBe('not_found');
    for (const junk of ['nope', 'agt_01jd3n6v8m0000000000000000', 'stats']) {
      const bad = await bed.p.request('GET', `/admin/v1/sessions/${junk}`);
      expect(bad.status, junk).toBe(400);
      expect(bad.body.error.details[0].path).toBe('params.id');
    }
  });
});

describe('session lifecycle', () => {
  it('ends once when ended twice, and counts it once', async () => {
    const agent = (await createAgent(bed.p)).id;
    const start = Date.now() - hour;
    const s = await bed.p.parley.store.sessions.create({ agent_id: agent, type: 'chat', transport: 'chat' }, start);
    const [first, second] = await Promise.all([
      bed.p.parley.store.sessions.end(s.id, 'idle_timeout', start + 4000),
      bed.p.parley.store.sessions.end(s.id, 'shutdown', start + 5000),
    ]);
    const winners = [first, second].filter((r) => r !== null);
    expect(winners).toHaveLength(1);
    expect(await bed.p.parley.store.sessions.end(s.id, 'error', start + 9000)).toBeNull();
    const stored = await bed.p.request('GET', `/admin/v1/sessions/${s.id}`);
    expect(stored.body).toMatchObject({
      status: 'ended',
      end_reason: winners[0]!.end_reason,
      duration_ms: winners[0]!.duration_ms,
    });
    const overview = await bed.p.request('GET', '/admin/v1/sessions/stats/overview');
    expect(overview.body).toMatchObject({ total: 1, active: 0, ended: 1 });
    const reasons = overview.body.by_end_reason as Record<string, number>;
    expect(Object.values(reasons).reduce((a, b) => a + b, 0)).toBe(1);
    await expect(bed.p.parley.store.sessions.end(unknownSession, 'error')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('records turns, re-scores activity and finds idle sessions', async () => {
    const agent = (await createAgent(bed.p)).id;
    const t0 = Date.now() - 2 * hour;
    const sessions = bed.p.parley.store.sessions;
    const quiet = await sessions.create({ agent_id: agent, type: 'chat', transport: 'chat' }, t0);
    const busy = await sessions.create({ agent_id: agent, type: 'chat', transport: 'chat' }, t0 + 1000);
    await sessions.recordTurn(busy.id, t0 + 60_000);
    await sessions.recordTurn(busy.id, t0 + 120_000);
    expect(await sessions.idle(t0 + 30_000, 10)).toEqual([quiet.id]);
    expect(await sessions.idle(t0 + 200_000, 10)).toEqual([quiet.id, busy.id]);
    expect(await sessions.idle(t0 + 200_000, 1)).toEqual([quiet.id]);
    const got = await sessions.get(busy.id);
    expect(got.turns).toBe(2);
    expect(got.last_activity_at).toBe(new Date(t0 + 120_000).toISOString());
    await sessions.end(quiet.id, 'idle_timeout', t0 + 300_000);
    expect(await sessions.idle(t0 + 400_000, 10)).toEqual([busy.id]);
    await sessions.recordTurn(quiet.id, t0 + 500_000); // ended: left alone
    expect((await sessions.get(quiet.id)).turns).toBe(0);
    expect(await sessions.idle(t0 + 600_000, 10)).toEqual([busy.id]);
    await expect(sessions.recordTurn(unknownSession)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('finds idle sessions of one type', async () => {
    const agent = (await createAgent(bed.p)).id;
    const t0 = Date.now() - 2 * hour;
    const sessions = bed.p.parley.store.sessions;
    const voice = await sessions.create({ agent_id: agent, type: 'voice', transport: 'websocket' }, t0);
    const chat = await sessions.create({ agent_id: agent, type: 'chat', transport: 'chat' }, t0 + 1);
    expect(await sessions.idle(t0 + 10, 1)).toEqual([voice.id]);
    expect(await sessions.idle(t0 + 10, 1, 'chat')).toEqual([chat.id]);
    expect(await sessions.idle(t0 + 10, 5, 'voice')).toEqual([voice.id]);
    await sessions.touch(chat.id, t0 + 100);
    expect(await sessions.idle(t0 + 10, 5, 'chat')).toEqual([]);
    expect((await sessions.get(chat.id)).turns).toBe(0);
    await sessions.end(voice.id, 'client_hangup', t0 + 200);
    expect(await sessions.idle(t0 + 300, 5, 'voice')).toEqual([]);
    expect(await sessions.idle(t0 + 300, 5)).toEqual([chat.id]);
  });

  it('refuses a session for an agent that does not exist', async () => {
    await expect(
      bed.p.parley.store.sessions.create({ agent_id: unknownAgent, type: 'chat', transport: 'chat' }),
    ).rejects.toBeInstanceOf(NotFoundError);
    const list = await bed.p.request('GET', '/admin/v1/sessions');
    expect(list.body.data).toEqual([]);
  });
});

describe('GET /admin/v1/sessions/stats/overview', () => {
  it('counts by type, end reason and recency', async () => {
    const agent = (await createAgent(bed.p)).id;
    const now = Date.now();
    const s = bed.p.parley.store.sessions;
    const old = await s.create({ agent_id: agent, type: 'voice', transport: 'websocket' }, now - 48 * hour);
    const a = await s.create({ agent_id: agent, type: 'chat', transport: 'chat' }, now - hour);
    await s.create({ agent_id: agent, type: 'chat', transport: 'chat' }, now - hour + 1);
    await s.recordTurn(a.id, now - hour + 10);
    await s.recordTurn(a.id, now - hour + 20);
    await s.recordTurn(old.id, now - 48 * hour + 10);
    await s.end(old.id, 'max_duration', now - 48 * hour + 3000);
    await s.end(a.id, 'client_hangup', now - hour + 5000);
    const res = await bed.p.request('GET', '/admin/v1/sessions/stats/overview');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      total: 3,
      active: 1,
      ended: 2,
      by_type: { chat: 2, voice: 1 },
      by_end_reason: {
        ...Object.fromEntries(sessionEndReasons.map((r) => [r, 0])),
        max_duration: 1,
        client_hangup: 1,
      },
      avg_duration_ms: 4000,
      turns: 3,
      started_last_24h: 2,
    });
  });

  it('gives no duration to voice sessions that never connected, and leaves them out of the mean', async () => {
    const agent = (await createAgent(bed.p)).id;
    const now = Date.now();
    const { sessions: s, leases } = bed.p.parley.store;
    const voice = { agent_id: agent, type: 'voice', transport: 'websocket' } as const;
    const ran = await s.create(voice, now - 10_000);
    const reaped = await s.create(voice, now - 10_000);
    // Still in its connect window when it ends for another reason: it never ran either.
    const waiting = await s.create(voice, now - 10_000);
    await leases.awaitMedia(waiting.id, 60_000);
    const connected = await s.create(voice, now - 10_000);
    await leases.awaitMedia(connected.id, 60_000);
    expect(await leases.claim(connected.id, 'test-holder', 30_000)).toBe('ok');

    expect((await s.end(ran.id, 'client_hangup', now - 4_000))?.duration_ms).toBe(6_000);
    expect((await s.end(reaped.id, 'never_connected', now))?.duration_ms).toBeNull();
    expect((await s.end(waiting.id, 'agent_deleted', now))?.duration_ms).toBeNull();
    expect((await s.end(connected.id, 'client_hangup', now))?.duration_ms).toBe(10_000);

    const listed = await bed.p.request('GET', `/admin/v1/sessions?agent_id=${agent}`);
    const durations = Object.fromEntries(
      (listed.body.data as Session[]).map((x) => [x.id, [x.end_reason, x.duration_ms]]),
    );
    expect(durations).toEqual({
      [ran.id]: ['client_hangup', 6_000],
      [reaped.id]: ['never_connected', null],
      [waiting.id]: ['agent_deleted', null],
      [connected.id]: ['client_hangup', 10_000],
    });
    const overview = await bed.p.request('GET', '/admin/v1/sessions/stats/overview');
    expect(overview.body).toMatchObject({ ended: 4, avg_duration_ms: 8_000 });
  });

  it('starts at zero', async () => {
    const res = await bed.p.request('GET', '/admin/v1/sessions/stats/overview');
    expect(res.body).toMatchObject({ total: 0, active: 0, ended: 0, avg_duration_ms: null, started_last_24h: 0 });
  });
});

describe('GET /admin/v1/agents/:id/sessions', () => {
  it('lists the agent’s sessions with the same filters', async () => {
    const a = (await createAgent(bed.p, { name: 'a' })).id;
    const b = (await createAgent(bed.p, { name: 'b' })).id;
    const s = bed.p.parley.store.sessions;
    const base = Date.now() - hour;
    const a1 = await s.create({ agent_id: a, type: 'chat', transport: 'chat' }, base);
    const a2 = await s.create({ agent_id: a, type: 'voice', transport: 'websocket' }, base + 1);
    const a3 = await s.create({ agent_id: a, type: 'chat', transport: 'chat' }, base + 2);
    await s.create({ agent_id: b, type: 'chat', transport: 'chat' }, base + 3);
    const all = await bed.p.request('GET', `/admin/v1/agents/${a}/sessions`);
    expect(all.status).toBe(200);
    expect(ids(all.body)).toEqual([a3.id, a2.id, a1.id]);
    const page1 = await bed.p.request('GET', `/admin/v1/agents/${a}/sessions?limit=2&type=chat`);
    expect(ids(page1.body)).toEqual([a3.id, a1.id]);
    expect(page1.body.next_cursor).toBeNull();
    const page = await bed.p.request('GET', `/admin/v1/agents/${a}/sessions?limit=1`);
    const next = await bed.p.request('GET', `/admin/v1/agents/${a}/sessions?limit=1&cursor=${page.body.next_cursor}`);
    expect(ids(next.body)).toEqual([a2.id]);
  });

  it('answers 404 for an unknown agent and 400 for bad input', async () => {
    const nf = await bed.p.request('GET', `/admin/v1/agents/${unknownAgent}/sessions`);
    expect(nf.status).toBe(404);
    const agent = (await createAgent(bed.p)).id;
    for (const path of [
      `/admin/v1/agents/nope/sessions`,
      `/admin/v1/agents/${agent}/sessions?limit=500`,
      `/admin/v1/agents/${agent}/sessions?status=x`,
    ]) {
      const res = await bed.p.request('GET', path);
      expect(res.status, path).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
    }
  });
});

describe('agent stats', () => {
  it('reflect sessions and activity', async () => {
    const agent = (await createAgent(bed.p)).id;
    const s = bed.p.parley.store.sessions;
    const chat = await s.create({ agent_id: agent, type: 'chat', transport: 'chat' });
    await s.create({ agent_id: agent, type: 'voice', transport: 'websocket' });
    await s.create({ agent_id: agent, type: 'voice', transport: 'livekit' });
    await s.recordTurn(chat.id);
    await s.end(chat.id, 'client_hangup');
    const stats = await bed.p.request('GET', `/admin/v1/agents/${agent}/stats`);
    expect(stats.status).toBe(200);
    expect(stats.body.sessions).toEqual({ total: 3, active: 2, chat: 1, voice: 2 });
    expect(stats.body.last_active_at).not.toBeNull();
  });
});

describe('authentication', () => {
  it.each([
    '/admin/v1/sessions',
    `/admin/v1/sessions/${unknownSession}`,
    '/admin/v1/sessions/stats/overview',
    `/admin/v1/agents/${unknownAgent}/sessions`,
  ])('GET %s needs the admin key', async (path) => {
    const missing = await bed.p.request('GET', path, { apiKey: null });
    expect(missing.status).toBe(401);
    expect(missing.body.error.code).toBe('unauthorized');
    const wrong = await bed.p.request('GET', path, { apiKey: 'wrong-key' });
    expect(wrong.status).toBe(401);
  });
});

describe('restart', () => {
  it('keeps sessions and counters across a Parley and Redis restart', async () => {
    const agent = (await createAgent(bed.p)).id;
    const s = await bed.p.parley.store.sessions.create({
      agent_id: agent,
      type: 'voice',
      transport: 'websocket',
      user_id: 'u',
    });
    const before = await bed.p.request('GET', `/admin/v1/sessions/${s.id}`);
    await bed.restart(async () => {
      if (bed.redis.ownsServer) {
        await bed.redis.stopServer();
        await bed.redis.startServer();
      }
    });
    const after = await bed.p.request('GET', `/admin/v1/sessions/${s.id}`);
    expect(after.status).toBe(200);
    expect(after.body).toEqual(before.body);
    // the scripts still run after Redis forgot them (NOSCRIPT reload)
    await bed.p.parley.store.sessions.recordTurn(s.id);
    const ended = await bed.p.parley.store.sessions.end(s.id, 'shutdown');
    expect(ended).toMatchObject({ status: 'ended', turns: 1, end_reason: 'shutdown' });
    const overview = await bed.p.request('GET', '/admin/v1/sessions/stats/overview');
    expect(overview.body).toMatchObject({ total: 1, active: 0, ended: 1, turns: 1 });
  });
});

describe('OpenAPI', () => {
  it('documents every route with its operation id and error responses', async () => {
    const doc = await bed.p.request('GET', '/openapi.json', { apiKey: null });
    for (const [path, method, operationId] of [
      ['/admin/v1/sessions', 'get', 'listSessions'],
      ['/admin/v1/sessions/stats/overview', 'get', 'getSessionOverview'],
      ['/admin/v1/sessions/{id}', 'get', 'getSession'],
      ['/admin/v1/agents/{id}/sessions', 'get', 'listAgentSessions'],
    ]) {
      const op = doc.body.paths[path!]?.[method!];
      expect(op?.operationId, path).toBe(operationId);
      expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '401', '500']));
      if (path!.includes('{id}')) expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['400', '404']));
    }
  });
});
