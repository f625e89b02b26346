import { TokenVerifier } from 'livekit-server-sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startParley, type TestParley, type TestResponse } from '../support/parley.js';
import { TestRedis } from '../support/redis-server.js';
import { createAgent } from '../support/agents.js';

/** POST /sdk/v1/session: a voice session record and a LiveKit participant token (SPEC §2, §4.4, §7). */

const livekit = {
  LIVEKIT_URL: 'wss://lk.example.test',
  LIVEKIT_API_KEY: 'APIparleytest',
  LIVEKIT_API_SECRET: 'parley-test-livekit-secret-0123456789abcdef',
};
const ttlS = 120;
const roomy = { PARLEY_RATE_LIMIT_BURST: '10000', PARLEY_RATE_LIMIT_RPM: '100000' };

let redis: TestRedis;
let p: TestParley;

beforeAll(async () => {
  redis = await TestRedis.start();
  p = await startParley(redis, { ...roomy, ...livekit, PARLEY_LIVEKIT_TOKEN_TTL_S: String(ttlS) });
});
afterAll(async () => {
  await p?.close();
  await redis?.close();
});
beforeEach(async () => {
  await redis.flush();
});

function openSession(body: unknown, on: TestParley = p): Promise<TestResponse> {
  return on.request('POST', '/sdk/v1/session', { body, apiKey: null });
}

interface LivekitClaims {
  iss: string;
  sub: string;
  nbf: number;
  exp: number;
  metadata?: string;
  video: { room: string; roomJoin: boolean; canPublish: boolean; canSubscribe: boolean };
}

async function verify(
  token: string,
  key = livekit.LIVEKIT_API_KEY,
  secret = livekit.LIVEKIT_API_SECRET,
): Promise<LivekitClaims> {
  return (await new TokenVerifier(key, secret).verify(token)) as unknown as LivekitClaims;
}

describe('with LiveKit configured', () => {
  it('201 with session_id, a LiveKit token for the session’s room and the wss URL', async () => {
    const agent = await createAgent(p);
    const res = await openSession({ agent_token: agent.agent_token, user_id: 'caller-7' });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['connection_token', 'connection_url', 'session_id', 'warnings']);
    // The same strings as the agent's own answers (an agent that can serve here: none).
    const read = await p.request('GET', `/admin/v1/agents/${agent.id}`);
    expect(res.body.warnings).toEqual(read.body.warnings);
    const {
      session_id: sessionId,
      connection_token: token,
      connection_url: url,
    } = res.body as { session_id: string; connection_token: string; connection_url: string };
    expect(sessionId).toMatch(/^ses_[0-9a-z]{26}$/);
    expect(url).toBe('wss://lk.example.test');
    expect(token.split('.')).toHaveLength(3);

    const claims = await verify(token);
    expect(claims.iss).toBe(livekit.LIVEKIT_API_KEY);
    expect(claims.sub).toBe('caller-7');
    expect(claims.video).toMatchObject({
      room: `parley-${sessionId}`,
      roomJoin: true,
      canPublish: true,
      canSubscribe: true,
    });
    expect(claims.exp - claims.nbf).toBeGreaterThanOrEqual(ttlS - 1);
    expect(claims.exp - claims.nbf).toBeLessThanOrEqual(ttlS + 1);
    expect(JSON.parse(claims.metadata ?? '{}')).toMatchObject({ session_id: sessionId, agent_id: agent.id });
  });

  it('generates a distinct identity when no user_id is given', async () => {
    const agent = await createAgent(p);
    const a = await openSession({ agent_token: agent.agent_token });
    const b = await openSession({ agent_token: agent.agent_token });
    expect([a.status, b.status]).toEqual([201, 201]);
    const [ca, cb] = await Promise.all([verify(a.body.connection_token), verify(b.body.connection_token)]);
    expect(ca.sub).toEqual(expect.any(String));
    expect(ca.sub.length).toBeGreaterThan(4);
    expect(ca.sub).not.toBe(cb.sub);
    expect(ca.video.room).not.toBe(cb.video.room);
  });

  it('the token does not verify with another secret or another key', async () => {
    const agent = await createAgent(p);
    const res = await openSession({ agent_token: agent.agent_token });
    await expect(
      verify(res.body.connection_token, livekit.LIVEKIT_API_KEY, 'another-secret-another-secret-00000'),
    ).rejects.toThrow();
    await expect(verify(res.body.connection_token, 'APIsomeoneelse', livekit.LIVEKIT_API_SECRET)).rejects.toThrow();
  });

  it('records an active voice session (type voice, transport livekit, its room) for the admin API', async () => {
    const agent = await createAgent(p);
    const res = await openSession({ agent_token: agent.agent_token, user_id: 'caller-1' });
    const sessionId = res.body.session_id as string;
    const session = await p.request('GET', `/admin/v1/sessions/${sessionId}`);
    expect(session.status).toBe(200);
    expect(session.body).toMatchObject({
      id: sessionId,
      agent_id: agent.id,
      type: 'voice',
      transport: 'livekit',
      status: 'active',
      user_id: 'caller-1',
      room: `parley-${sessionId}`,
      turns: 0,
    });
    const listed = await p.request('GET', '/admin/v1/sessions?type=voice');
    expect(listed.body.data.map((s: { id: string }) => s.id)).toEqual([sessionId]);
    const stats = await p.request('GET', `/admin/v1/agents/${agent.id}/stats`);
    expect(stats.body.sessions).toMatchObject({ total: 1, voice: 1, chat: 0, active: 1 });
  });

  it('a voice session id cannot be continued through /sdk/v1/chat (409)', async () => {
    const agent = await createAgent(p);
    const voice = await openSession({ agent_token: agent.agent_token });
    const res = await p.request('POST', '/sdk/v1/chat', {
      body: { agent_token: agent.agent_token, message: 'hi', session_id: voice.body.session_id },
      apiKey: null,
    });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('conflict');
  });

  it('an http(s) LIVEKIT_URL is handed to clients as ws(s)', async () => {
    for (const [configured, expected] of [
      ['https://lk.example.test', 'wss://lk.example.test'],
      ['http://127.0.0.1:7880', 'ws://127.0.0.1:7880'],
    ] as const) {
      const other = await startParley(redis, { ...roomy, ...livekit, LIVEKIT_URL: configured });
      try {
        const agent = await createAgent(other);
        const res = await openSession({ agent_token: agent.agent_token }, other);
        expect(res.status).toBe(201);
        expect(res.body.connection_url).toBe(expected);
      } finally {
        await other.close();
      }
    }
  });
});

describe('errors', () => {
  it('401 for an unknown agent token', async () => {
    const res = await openSession({ agent_token: 'pat_not-a-real-token' });
    expect(res.status).toBe(401);
    expect(res.body.error).toMatchObject({ code: 'unauthorized', request_id: expect.any(String) });
  });

  it('without LiveKit, a SPEC-shaped request (no transport) gets the built-in WebSocket endpoint', async () => {
    const plain = await startParley(redis, roomy);
    try {
      const agent = await createAgent(plain);
      const res = await openSession({ agent_token: agent.agent_token, user_id: 'u' }, plain);
      expect(res.status).toBe(201);
      expect(res.body.connection_url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/sdk\/v1\/media$/);
      const session = await plain.request('GET', `/admin/v1/sessions/${res.body.session_id}`);
      expect(session.body).toMatchObject({ type: 'voice', transport: 'websocket', user_id: 'u' });
    } finally {
      await plain.close();
    }
  });

  it('503 voice_unavailable when LiveKit is asked for without it, and no session is left behind', async () => {
    const plain = await startParley(redis, roomy);
    try {
      const agent = await createAgent(plain);
      const res = await openSession({ agent_token: agent.agent_token, user_id: 'u', transport: 'livekit' }, plain);
      expect(res.status).toBe(503);
      expect(res.body.error).toMatchObject({
        code: 'voice_unavailable',
        message: expect.stringContaining('LIVEKIT_URL'),
        request_id: expect.any(String),
      });
      const sessions = await plain.request('GET', '/admin/v1/sessions');
      expect(sessions.body.data).toEqual([]);
      // An unknown token is still 401 there: authentication comes first.
      expect((await openSession({ agent_token: 'pat_nope' }, plain)).status).toBe(401);
    } finally {
      await plain.close();
    }
  });

  it('400 validation_error listing every bad field', async () => {
    const agent = await createAgent(p);
    const paths = async (body: unknown) => {
      const res = await openSession(body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
      return (res.body.error.details as { path: string }[]).map((d) => d.path).sort();
    };
    expect(await paths({})).toEqual(['body.agent_token']);
    expect(await paths({ agent_token: agent.agent_token, user_id: '' })).toEqual(['body.user_id']);
    expect(await paths({ agent_token: 5, user_id: 7, room: 'mine', grants: {} })).toEqual([
      'body.agent_token',
      'body.grants',
      'body.room',
      'body.user_id',
    ]);
    expect(await paths([agent.agent_token])).toEqual(['body']);
    const sessions = await p.request('GET', '/admin/v1/sessions');
    expect(sessions.body.data).toEqual([]);
  });
});
