import { describe, expect, it } from 'vitest';
import { NotFoundError } from '../../src/errors/app-errors.js';
import type { Session } from '../../src/schemas/session.js';
import { parleyForFile } from '../support/parley.js';
import { createAgent } from '../support/agents.js';

const bed = parleyForFile();

const unknownConversation = 'cnv_01jd3n6v8m0000000000000000';
const hour = 3_600_000;

function ids(body: { data: { id: string }[] }): string[] {
  return body.data.map((c) => c.id);
}

async function chat(agentId: string, userId: string | null, now: number): Promise<Session> {
  return bed.p.parley.store.sessions.create(
    { agent_id: agentId, type: 'chat', transport: 'chat', user_id: userId },
    now,
  );
}

describe('GET /admin/v1/conversations', () => {
  it('lists one conversation per session, newest first, paged by cursor', async () => {
    const agent = (await createAgent(bed.p)).id;
    const base = Date.now() - 5 * hour;
    const sessions: Session[] = [];
    for (let i = 0; i < 5; i++) sessions.push(await chat(agent, null, base + i));
    const expected = sessions.map((s) => s.conversation_id).reverse();
    const page1 = await bed.p.request('GET', '/admin/v1/conversations?limit=3');
    expect(page1.status).toBe(200);
    expect(ids(page1.body)).toEqual(expected.slice(0, 3));
    const page2 = await bed.p.request('GET', `/admin/v1/conversations?limit=3&cursor=${page1.body.next_cursor}`);
    expect(ids(page2.body)).toEqual(expected.slice(3));
    expect(page2.body.next_cursor).toBeNull();
    expect(page1.body.data[2]).toEqual({
      id: sessions[2]!.conversation_id,
      agent_id: agent,
      session_id: sessions[2]!.id,
      user_id: null,
      message_count: 0,
      created_at: new Date(base + 2).toISOString(),
      updated_at: new Date(base + 2).toISOString(),
      last_message_at: null,
      analysis: null,
      recording: null,
    });
  });

  it('filters by agent, session, user and time', async () => {
    const a = (await createAgent(bed.p, { name: 'a' })).id;
    const b = (await createAgent(bed.p, { name: 'b' })).id;
    const base = Date.now() - 5 * hour;
    const s1 = await chat(a, 'alice', base);
    const s2 = await chat(a, 'bob', base + 1000);
    const s3 = await chat(b, 'alice', base + 2000);
    const byAgent = await bed.p.request('GET', `/admin/v1/conversations?agent_id=${a}`);
    expect(ids(byAgent.body)).toEqual([s2.conversation_id, s1.conversation_id]);
    const bySession = await bed.p.request('GET', `/admin/v1/conversations?session_id=${s3.id}`);
    expect(ids(bySession.body)).toEqual([s3.conversation_id]);
    const sessionOtherAgent = await bed.p.request('GET', `/admin/v1/conversations?session_id=${s3.id}&agent_id=${a}`);
    expect(ids(sessionOtherAgent.body)).toEqual([]);
    const unknownSession = await bed.p.request(
      'GET',
      '/admin/v1/conversations?session_id=ses_01jd3n6v8m0000000000000000',
    );
    expect(unknownSession.status).toBe(200);
    expect(unknownSession.body).toEqual({ data: [], next_cursor: null });
    const alice = await bed.p.request('GET', '/admin/v1/conversations?user_id=alice');
    expect(ids(alice.body)).toEqual([s3.conversation_id, s1.conversation_id]);
    const from = new Date(base + 500).toISOString();
    const to = new Date(base + 1500).toISOString();
    const window = await bed.p.request('GET', `/admin/v1/conversations?from=${from}&to=${to}`);
    expect(ids(window.body)).toEqual([s2.conversation_id]);
    const sessionOutsideWindow = await bed.p.request('GET', `/admin/v1/conversations?session_id=${s1.id}&from=${from}`);
    expect(ids(sessionOutsideWindow.body)).toEqual([]);
  });

  it('rejects bad limits and filters with 400', async () => {
    for (const query of [
      'limit=0',
      'limit=1000',
      'agent_id=x',
      'session_id=cnv_01jd3n6v8m0000000000000000',
      'to=soon',
      'cursor=%21',
    ]) {
      const res = await bed.p.request('GET', `/admin/v1/conversations?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
    }
  });
});

describe('GET /admin/v1/conversations/:id', () => {
  it('returns the messages oldest first with their counters', async () => {
    const agent = (await createAgent(bed.p)).id;
    const t0 = Date.now() - hour;
    const s = await chat(agent, 'u', t0);
    const conversations = bed.p.parley.store.conversations;
    const m1 = await conversations.appendMessage(s.conversation_id, { role: 'user', text: 'Hello?' }, t0 + 10);
    const m2 = await conversations.appendMessage(
      s.conversation_id,
      { role: 'agent', text: 'Hi! How can I help?', timings: { response_ms: 420, webhook_ms: 390 } },
      t0 + 20,
    );
    const m3 = await conversations.appendMessage(
      s.conversation_id,
      { role: 'agent', text: 'Sorry, I', status: 'interrupted' },
      t0 + 30,
    );
    const res = await bed.p.request('GET', `/admin/v1/conversations/${s.conversation_id}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: s.conversation_id,
      session_id: s.id,
      user_id: 'u',
      message_count: 3,
      updated_at: new Date(t0 + 30).toISOString(),
      last_message_at: new Date(t0 + 30).toISOString(),
      messages_cursor: null,
    });
    expect(res.body.messages).toEqual([m1, m2, m3]);
    expect(res.body.messages[0]).toEqual({
      id: m1.id,
      conversation_id: s.conversation_id,
      role: 'user',
      text: 'Hello?',
      status: 'complete',
      created_at: new Date(t0 + 10).toISOString(),
      timings: null,
      error_id: null,
    });
    expect(m2.timings).toEqual({ response_ms: 420, webhook_ms: 390 });
    expect(await conversations.recent(s.conversation_id, 2)).toEqual([m2, m3]);
    expect(await conversations.recent(s.conversation_id, 10)).toEqual([m1, m2, m3]);
  });

  it('pages older messages with limit and before', async () => {
    const agent = (await createAgent(bed.p)).id;
    const s = await chat(agent, null, Date.now());
    const texts: string[] = [];
    for (let i = 0; i < 7; i++) {
      texts.push(`m${i}`);
      await bed.p.parley.store.conversations.appendMessage(s.conversation_id, {
        role: i % 2 === 0 ? 'user' : 'agent',
        text: `m${i}`,
      });
    }
    const latest = await bed.p.request('GET', `/admin/v1/conversations/${s.conversation_id}?limit=3`);
    expect(latest.body.messages.map((m: { text: string }) => m.text)).toEqual(['m4', 'm5', 'm6']);
    const older = await bed.p.request(
      'GET',
      `/admin/v1/conversations/${s.conversation_id}?limit=3&before=${latest.body.messages_cursor}`,
    );
    expect(older.body.messages.map((m: { text: string }) => m.text)).toEqual(['m1', 'm2', 'm3']);
    const oldest = await bed.p.request(
      'GET',
      `/admin/v1/conversations/${s.conversation_id}?limit=3&before=${older.body.messages_cursor}`,
    );
    expect(oldest.body.messages.map((m: { text: string }) => m.text)).toEqual(['m0']);
    expect(oldest.body.messages_cursor).toBeNull();
  });

  it('answers 404 for an unknown id and 400 for bad input', async () => {
    const nf = await bed.p.request('GET', `/admin/v1/conversations/${unknownConversation}`);
    expect(nf.status).toBe(404);
    expect(nf.body.error.code).toBe('not_found');
    const agent = (await createAgent(bed.p)).id;
    const s = await chat(agent, null, Date.now());
    for (const path of [
      '/admin/v1/conversations/nope',
      `/admin/v1/conversations/${s.id}`,
      `/admin/v1/conversations/${s.conversation_id}?limit=0`,
      `/admin/v1/conversations/${s.conversation_id}?limit=501`,
      `/admin/v1/conversations/${s.conversation_id}?before=junk`,
    ]) {
      const res = await bed.p.request('GET', path);
      expect(res.status, path).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
    }
    await expect(
      bed.p.parley.store.conversations.appendMessage(unknownConversation, { role: 'user', text: 'x' }),
    ).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('agent stats', () => {
  it('count user and agent messages, atomically with the message count', async () => {
    const agent = (await createAgent(bed.p)).id;
    const s = await chat(agent, null, Date.now());
    const conversations = bed.p.parley.store.conversations;
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        conversations.appendMessage(s.conversation_id, { role: i < 12 ? 'user' : 'agent', text: `t${i}` }),
      ),
    );
    const stats = await bed.p.request('GET', `/admin/v1/agents/${agent}/stats`);
    expect(stats.body.messages).toEqual({ user: 12, agent: 8 });
    const conversation = await bed.p.request('GET', `/admin/v1/conversations/${s.conversation_id}`);
    expect(conversation.body.message_count).toBe(20);
    expect(conversation.body.messages).toHaveLength(20);
  });
});

describe('authentication', () => {
  it.each(['/admin/v1/conversations', `/admin/v1/conversations/${unknownConversation}`])(
    'GET %s needs the admin key',
    async (path) => {
      const missing = await bed.p.request('GET', path, { apiKey: null });
      expect(missing.status).toBe(401);
      expect(missing.body.error.code).toBe('unauthorized');
      const wrong = await bed.p.request('GET', path, { apiKey: 'wrong-key' });
      expect(wrong.status).toBe(401);
    },
  );
});

describe('restart', () => {
  it('keeps conversations and messages across a Parley restart', async () => {
    const agent = (await createAgent(bed.p)).id;
    const s = await chat(agent, 'u', Date.now());
    await bed.p.parley.store.conversations.appendMessage(s.conversation_id, { role: 'user', text: 'remember me' });
    const before = await bed.p.request('GET', `/admin/v1/conversations/${s.conversation_id}`);
    await bed.restart();
    const after = await bed.p.request('GET', `/admin/v1/conversations/${s.conversation_id}`);
    expect(after.status).toBe(200);
    expect(after.body).toEqual(before.body);
    const list = await bed.p.request('GET', '/admin/v1/conversations');
    expect(ids(list.body)).toEqual([s.conversation_id]);
  });
});

describe('OpenAPI', () => {
  it('documents every route with its operation id and error responses', async () => {
    const doc = await bed.p.request('GET', '/openapi.json', { apiKey: null });
    for (const [path, method, operationId] of [
      ['/admin/v1/conversations', 'get', 'listConversations'],
      ['/admin/v1/conversations/{id}', 'get', 'getConversation'],
    ]) {
      const op = doc.body.paths[path!]?.[method!];
      expect(op?.operationId, path).toBe(operationId);
      expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '401', '500']));
      if (path!.includes('{id}')) expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['400', '404']));
    }
  });
});
