import { describe, expect, it } from 'vitest';
import { defaultAgentSettings } from '../../src/schemas/agent.js';
import { parleyForFile, type TestResponse } from '../support/parley.js';
import { createAgent } from '../support/agents.js';

const bed = parleyForFile();

const unknownAgentId = 'agt_01jd3n6v8m0000000000000000';
const unknownPresetId = 'pre_01jd3n6v8m0000000000000000';

interface AgentBody {
  id: string;
  name: string;
  agent_token: string;
  created_at: string;
  updated_at: string;
  [field: string]: unknown;
}

async function createPreset(name: string): Promise<{ id: string }> {
  const res = await bed.p.request('POST', '/admin/v1/presets', { body: { name } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string };
}

async function agentCount(presetId: string): Promise<number> {
  const res = await bed.p.request('GET', `/admin/v1/presets/${presetId}`);
  expect(res.status).toBe(200);
  return res.body.agent_count as number;
}

/** The error shape of DESIGN.md, with the request id matching the header. */
function expectError(res: TestResponse, status: number, code: string): void {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body.error.code).toBe(code);
  expect(typeof res.body.error.message).toBe('string');
  expect(res.body.error.request_id).toBe(res.headers.get('x-request-id'));
}

/** A 400 whose details name exactly these fields, each with a message. */
function expectInvalid(res: TestResponse, paths: string[]): void {
  expectError(res, 400, 'validation_error');
  const details = res.body.error.details as { path: string; message: string }[];
  expect(details.map((d) => d.path).sort()).toEqual([...paths].sort());
  for (const d of details) expect(d.message.length).toBeGreaterThan(0);
}

/** No response may ever carry the write-only key, by name or by value. */
function expectNoSecret(res: TestResponse, secret = 'hook-secret-123'): void {
  const text = JSON.stringify(res.body);
  expect(text).not.toContain('"webhook_api_key"');
  expect(text).not.toContain(secret);
}

describe('create', () => {
  it('fills defaults, returns 201 with Location and a pat_ token, and hides the webhook key', async () => {
    const res = await bed.p.request('POST', '/admin/v1/agents', {
      body: { name: '  Front desk  ', webhook_api_key: 'hook-secret-123' },
    });
    expect(res.status).toBe(201);
    expectNoSecret(res);
    const agent = res.body as AgentBody;
    expect(agent.id).toMatch(/^agt_[0-9a-z]{26}$/);
    expect(res.headers.get('location')).toBe(`/admin/v1/agents/${agent.id}`);
    expect(agent.agent_token).toMatch(/^pat_[A-Za-z0-9_-]{43}$/);
    expect(agent.name).toBe('Front desk');
    expect(agent.has_webhook_api_key).toBe(true);
    for (const [field, value] of Object.entries(defaultAgentSettings)) expect(agent[field], field).toEqual(value);
    expect(agent.created_at).toBe(agent.updated_at);
    expect(Date.parse(agent.created_at)).not.toBeNaN();

    const fetched = await bed.p.request('GET', res.headers.get('location')!);
    expect(fetched.status).toBe(200);
    expect(fetched.body).toEqual(agent);
    expectNoSecret(fetched);
  });

  it('keeps the settings it is given', async () => {
    const settings = {
      name: 'Support',
      description: 'Answers support calls',
      mode: 'passthrough',
      system_prompt: 'Be kind.',
      greeting: 'Hello!',
      language: 'en-GB',
      webhook_url: 'https://hooks.example.com/parley',
      webhook_timeout_ms: 5000,
      events_url: 'http://events.example.com/in',
      rag_enabled: true,
      interruptions_enabled: false,
      interruption_min_speech_ms: 200,
      vad_threshold: 0.6,
      min_silence_ms: 400,
      prefix_padding_ms: 100,
      max_utterance_ms: 20_000,
      idle_timeout_ms: 60_000,
      max_duration_ms: 600_000,
      metadata: { team: 'care', tier: 2, vip: false, note: null },
    };
    const agent = await createAgent(bed.p, settings);
    expect(agent).toMatchObject(settings);
    expect(agent.has_webhook_api_key).toBe(false);
  });

  it('lists every bad field with its path and a message', async () => {
    const res = await bed.p.request('POST', '/admin/v1/agents', {
      body: {
        name: '',
        mode: 'chatty',
        vad_threshold: 3,
        webhook_url: 'ftp://example.com',
        language: 'English!',
        webhook_timeout_ms: 1.5,
        rag_enabled: 'yes',
        preset_id: 'default',
        metadata: { k: { nested: true } },
        colour: 'blue',
        size: 3,
      },
    });
    expectInvalid(res, [
      'body.name',
      'body.mode',
      'body.vad_threshold',
      'body.webhook_url',
      'body.language',
      'body.webhook_timeout_ms',
      'body.rag_enabled',
      'body.preset_id',
      'body.metadata.k',
      'body.colour',
      'body.size',
    ]);
    const byPath = Object.fromEntries(
      (res.body.error.details as { path: string; message: string }[]).map((d) => [d.path, d.message]),
    );
    expect(byPath['body.colour']).toBe('unknown field');
    expect(byPath['body.mode']).toContain('passthrough');
    expect(byPath['body.metadata.k']).toContain('string');
  });

  it('says a missing name is required', async () => {
    const res = await bed.p.request('POST', '/admin/v1/agents', { body: {} });
    expectInvalid(res, ['body.name']);
    expect(res.body.error.details[0].message).toBe('required');
  });

  it('rejects a preset that does not exist at body.preset_id', async () => {
    const res = await bed.p.request('POST', '/admin/v1/agents', { body: { name: 'A', preset_id: unknownPresetId } });
    expectInvalid(res, ['body.preset_id']);
    expect(res.body.error.details[0].message).toContain(unknownPresetId);
    const list = await bed.p.request('GET', '/admin/v1/agents');
    expect(list.body.data).toEqual([]);
  });
});

describe('list', () => {
  it('pages newest first with no duplicates or gaps', async () => {
    const created: string[] = [];
    for (let i = 0; i < 23; i++) created.push((await createAgent(bed.p, { name: `agent-${i}` })).id);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: TestResponse = await bed.p.request(
        'GET',
        `/admin/v1/agents?limit=5${cursor === null ? '' : `&cursor=${cursor}`}`,
      );
      expect(res.status).toBe(200);
      expect(res.body.data.length).toBeLessThanOrEqual(5);
      seen.push(...res.body.data.map((a: AgentBody) => a.id));
      cursor = res.body.next_cursor;
      pages++;
    } while (cursor !== null && pages < 10);
    expect(pages).toBe(5);
    expect(seen).toEqual([...created].reverse());
  });

  it('defaults to 20 per page and never shows the webhook key', async () => {
    for (let i = 0; i < 21; i++) await createAgent(bed.p, { name: `a${i}`, webhook_api_key: 'hook-secret-123' });
    const res = await bed.p.request('GET', '/admin/v1/agents');
    expect(res.body.data).toHaveLength(20);
    expect(typeof res.body.next_cursor).toBe('string');
    expect(res.body.data.every((a: AgentBody) => a.has_webhook_api_key === true)).toBe(true);
    expectNoSecret(res);
  });

  it('filters by mode, preset_id and name, and pages through a filter', async () => {
    const preset = await createPreset('P');
    const names: string[] = [];
    for (let i = 0; i < 9; i++) {
      const body: Record<string, unknown> = { name: i % 3 === 0 ? `Sales ${i}` : `Support ${i}` };
      if (i % 2 === 0) body['mode'] = 'passthrough';
      if (i % 3 === 1) body['preset_id'] = preset.id;
      names.push((await createAgent(bed.p, body)).name);
    }
    const namesOf = (res: TestResponse) => res.body.data.map((a: AgentBody) => a.name);

    const passthrough = await bed.p.request('GET', '/admin/v1/agents?mode=passthrough');
    expect(namesOf(passthrough)).toEqual(['Support 8', 'Sales 6', 'Support 4', 'Support 2', 'Sales 0']);
    const withPreset = await bed.p.request('GET', `/admin/v1/agents?preset_id=${preset.id}`);
    expect(namesOf(withPreset)).toEqual(['Support 7', 'Support 4', 'Support 1']);
    const sales = await bed.p.request('GET', '/admin/v1/agents?q=sALEs');
    expect(namesOf(sales)).toEqual(['Sales 6', 'Sales 3', 'Sales 0']);
    const both = await bed.p.request('GET', `/admin/v1/agents?mode=passthrough&preset_id=${preset.id}`);
    expect(namesOf(both)).toEqual(['Support 4']);

    const first = await bed.p.request('GET', '/admin/v1/agents?mode=passthrough&limit=2');
    expect(namesOf(first)).toEqual(['Support 8', 'Sales 6']);
    const second = await bed.p.request(
      'GET',
      `/admin/v1/agents?mode=passthrough&limit=2&cursor=${first.body.next_cursor}`,
    );
    expect(namesOf(second)).toEqual(['Support 4', 'Support 2']);
    const third = await bed.p.request(
      'GET',
      `/admin/v1/agents?mode=passthrough&limit=2&cursor=${second.body.next_cursor}`,
    );
    expect(namesOf(third)).toEqual(['Sales 0']);
    expect(third.body.next_cursor).toBeNull();
  });

  it('filters by creation time with inclusive from/to', async () => {
    const agents: AgentBody[] = [];
    for (let i = 0; i < 4; i++) {
      agents.push(await createAgent(bed.p, { name: `t${i}` }));
      await new Promise((r) => setTimeout(r, 5));
    }
    const [, second, third] = agents;
    const expected = (min: number, max: number) =>
      agents
        .filter((a) => Date.parse(a.created_at) >= min && Date.parse(a.created_at) <= max)
        .map((a) => a.id)
        .reverse();
    const from = encodeURIComponent(second!.created_at);
    const to = encodeURIComponent(third!.created_at);
    const window = await bed.p.request('GET', `/admin/v1/agents?from=${from}&to=${to}`);
    expect(window.body.data.map((a: AgentBody) => a.id)).toEqual(
      expected(Date.parse(second!.created_at), Date.parse(third!.created_at)),
    );
    expect(window.body.data.map((a: AgentBody) => a.id)).toEqual([third!.id, second!.id]);
    const since = await bed.p.request('GET', `/admin/v1/agents?from=${from}`);
    expect(since.body.data.map((a: AgentBody) => a.id)).toEqual(expected(Date.parse(second!.created_at), Infinity));
    const until = await bed.p.request('GET', `/admin/v1/agents?to=${to}&limit=1`);
    expect(until.body.data.map((a: AgentBody) => a.id)).toEqual([third!.id]);
    const rest = await bed.p.request('GET', `/admin/v1/agents?to=${to}&limit=10&cursor=${until.body.next_cursor}`);
    expect(rest.body.data.map((a: AgentBody) => a.id)).toEqual(
      expected(-Infinity, Date.parse(third!.created_at)).slice(1),
    );
  });

  it('rejects bad query parameters, each by name', async () => {
    const res = await bed.p.request(
      'GET',
      '/admin/v1/agents?limit=0&mode=loud&from=yesterday&to=2024-13-01&preset_id=nope',
    );
    expectInvalid(res, ['query.limit', 'query.mode', 'query.from', 'query.to', 'query.preset_id']);
    expectInvalid(await bed.p.request('GET', '/admin/v1/agents?limit=101'), ['query.limit']);
    expectInvalid(await bed.p.request('GET', '/admin/v1/agents?cursor=not-a-cursor'), ['query.cursor']);
  });
});

describe('patch', () => {
  it('changes only the fields given', async () => {
    const agent = await createAgent(bed.p, { name: 'Before', greeting: 'Hi', metadata: { a: 1 } });
    const res = await bed.p.request('PATCH', `/admin/v1/agents/${agent.id}`, {
      body: { name: 'After', vad_threshold: 0.7 },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...agent, name: 'After', vad_threshold: 0.7, updated_at: res.body.updated_at });
    expect(Date.parse(res.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(agent.updated_at));
    expect((await bed.p.request('GET', `/admin/v1/agents/${agent.id}`)).body).toEqual(res.body);
  });

  it('clears nullable fields with null', async () => {
    const agent = await createAgent(bed.p, {
      name: 'A',
      greeting: 'Hi',
      webhook_url: 'https://hooks.example.com/x',
      events_url: 'https://events.example.com/x',
      webhook_api_key: 'hook-secret-123',
    });
    expect(agent.has_webhook_api_key).toBe(true);
    const res = await bed.p.request('PATCH', `/admin/v1/agents/${agent.id}`, {
      body: { greeting: null, webhook_url: null, events_url: null, webhook_api_key: null },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ greeting: null, webhook_url: null, events_url: null, has_webhook_api_key: false });
    expect((await bed.p.parley.store.agents.getStored(agent.id)).webhook_api_key).toBeNull();
  });

  it('sets the webhook key without ever returning it', async () => {
    const agent = await createAgent(bed.p, { name: 'A' });
    const res = await bed.p.request('PATCH', `/admin/v1/agents/${agent.id}`, {
      body: { webhook_api_key: 'hook-secret-123' },
    });
    expect(res.body.has_webhook_api_key).toBe(true);
    expectNoSecret(res);
    expect((await bed.p.parley.store.agents.getStored(agent.id)).webhook_api_key).toBe('hook-secret-123');
  });

  it('rejects unknown fields, nulls on required fields and bad values, each by name', async () => {
    const agent = await createAgent(bed.p, { name: 'A' });
    const res = await bed.p.request('PATCH', `/admin/v1/agents/${agent.id}`, {
      body: { nme: 'typo', name: null, mode: null, min_silence_ms: 10, agent_token: 'pat_mine', id: 'agt_x' },
    });
    expectInvalid(res, ['body.nme', 'body.name', 'body.mode', 'body.min_silence_ms', 'body.agent_token', 'body.id']);
    expect((await bed.p.request('GET', `/admin/v1/agents/${agent.id}`)).body).toEqual(agent);
  });

  it('reports a bad id and a bad body together', async () => {
    const res = await bed.p.request('PATCH', '/admin/v1/agents/agent-1', { body: { mode: 'x' } });
    expectInvalid(res, ['params.id', 'body.mode']);
  });
});

describe('delete', () => {
  it('answers 204, then 404, and the token stops resolving', async () => {
    const agent = await createAgent(bed.p, { name: 'Doomed' });
    expect((await bed.p.parley.store.agents.findByToken(agent.agent_token))?.id).toBe(agent.id);
    const res = await bed.p.request('DELETE', `/admin/v1/agents/${agent.id}`);
    expect(res.status).toBe(204);
    expect(res.body).toBeUndefined();
    expectError(await bed.p.request('GET', `/admin/v1/agents/${agent.id}`), 404, 'not_found');
    expectError(await bed.p.request('DELETE', `/admin/v1/agents/${agent.id}`), 404, 'not_found');
    expect(await bed.p.parley.store.agents.findByToken(agent.agent_token)).toBeNull();
    expect((await bed.p.request('GET', '/admin/v1/agents')).body.data).toEqual([]);
  });

  it('deletes its documents and ends its active sessions, keeping them as history', async () => {
    const agent = await createAgent(bed.p, { name: 'With history' });
    const store = bed.p.parley.store;
    const session = await store.sessions.create({ agent_id: agent.id, type: 'chat', transport: 'chat' });
    const upload = await bed.p.request('POST', `/admin/v1/agents/${agent.id}/documents`, {
      body: { name: 'notes', text: 'Opening hours are nine to five.' },
    });
    expect(upload.status).toBe(202);
    expect(await store.documents.all(agent.id)).toHaveLength(1);

    expect((await bed.p.request('DELETE', `/admin/v1/agents/${agent.id}`)).status).toBe(204);

    expect(await store.documents.all(agent.id)).toEqual([]);
    const ended = await bed.p.request('GET', `/admin/v1/sessions/${session.id}`);
    expect(ended.body).toMatchObject({ status: 'ended', end_reason: 'agent_deleted', agent_id: agent.id });
    const history = await bed.p.request('GET', `/admin/v1/conversations?agent_id=${agent.id}`);
    expect(history.body.data.map((c: { session_id: string }) => c.session_id)).toEqual([session.id]);
  });
});

describe('regenerate-token', () => {
  it('issues a new token; the old one stops resolving at once', async () => {
    const agent = await createAgent(bed.p, { name: 'A', webhook_api_key: 'hook-secret-123' });
    const res = await bed.p.request('POST', `/admin/v1/agents/${agent.id}/regenerate-token`);
    expect(res.status).toBe(200);
    expectNoSecret(res);
    const fresh = res.body.agent_token as string;
    expect(fresh).toMatch(/^pat_[A-Za-z0-9_-]{43}$/);
    expect(fresh).not.toBe(agent.agent_token);
    expect(res.body).toMatchObject({ id: agent.id, name: 'A', has_webhook_api_key: true });
    expect(await bed.p.parley.store.agents.findByToken(agent.agent_token)).toBeNull();
    expect((await bed.p.parley.store.agents.findByToken(fresh))?.id).toBe(agent.id);
    expect((await bed.p.request('GET', `/admin/v1/agents/${agent.id}`)).body.agent_token).toBe(fresh);

    const again = await bed.p.request('POST', `/admin/v1/agents/${agent.id}/regenerate-token`);
    expect(await bed.p.parley.store.agents.findByToken(fresh)).toBeNull();
    expect((await bed.p.parley.store.agents.findByToken(again.body.agent_token))?.id).toBe(agent.id);
  });
});

describe('stats', () => {
  it('is all zeros for a new agent', async () => {
    const agent = await createAgent(bed.p, { name: 'A' });
    const res = await bed.p.request('GET', `/admin/v1/agents/${agent.id}/stats`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      agent_id: agent.id,
      sessions: { total: 0, active: 0, chat: 0, voice: 0 },
      messages: { user: 0, agent: 0 },
      turns: 0,
      interrupted_turns: 0,
      errors: { total: 0, open: 0 },
      avg_response_ms: null,
      last_active_at: null,
    });
  });
});

describe('agent and preset', () => {
  it('counts agents per preset as they join, move and leave', async () => {
    const first = await createPreset('First');
    const second = await createPreset('Second');
    const agent = await createAgent(bed.p, { name: 'A', preset_id: first.id });
    expect(agent.preset_id).toBe(first.id);
    expect(await agentCount(first.id)).toBe(1);

    const moved = await bed.p.request('PATCH', `/admin/v1/agents/${agent.id}`, { body: { preset_id: second.id } });
    expect(moved.status).toBe(200);
    expect(moved.body.preset_id).toBe(second.id);
    expect(await agentCount(first.id)).toBe(0);
    expect(await agentCount(second.id)).toBe(1);
    expect((await bed.p.request('DELETE', `/admin/v1/presets/${first.id}`)).status).toBe(204);

    const inUse = await bed.p.request('DELETE', `/admin/v1/presets/${second.id}`);
    expectError(inUse, 409, 'conflict');
    expect(inUse.body.error.details).toEqual({ agent_ids: [agent.id] });

    const detached = await bed.p.request('PATCH', `/admin/v1/agents/${agent.id}`, { body: { preset_id: null } });
    expect(detached.body.preset_id).toBeNull();
    expect(await agentCount(second.id)).toBe(0);
    expect((await bed.p.request('DELETE', `/admin/v1/presets/${second.id}`)).status).toBe(204);
  });

  it('frees the preset when the agent is deleted', async () => {
    const preset = await createPreset('P');
    const a = await createAgent(bed.p, { name: 'A', preset_id: preset.id });
    const b = await createAgent(bed.p, { name: 'B', preset_id: preset.id });
    expect(await agentCount(preset.id)).toBe(2);
    const inUse = await bed.p.request('DELETE', `/admin/v1/presets/${preset.id}`);
    expectError(inUse, 409, 'conflict');
    expect([...inUse.body.error.details.agent_ids].sort()).toEqual([a.id, b.id].sort());
    await bed.p.request('DELETE', `/admin/v1/agents/${a.id}`);
    await bed.p.request('DELETE', `/admin/v1/agents/${b.id}`);
    expect(await agentCount(preset.id)).toBe(0);
    expect((await bed.p.request('DELETE', `/admin/v1/presets/${preset.id}`)).status).toBe(204);
  });

  it('refuses to move an agent to a preset that does not exist, and keeps it where it was', async () => {
    const preset = await createPreset('P');
    const agent = await createAgent(bed.p, { name: 'A', preset_id: preset.id });
    const res = await bed.p.request('PATCH', `/admin/v1/agents/${agent.id}`, { body: { preset_id: unknownPresetId } });
    expectInvalid(res, ['body.preset_id']);
    expect((await bed.p.request('GET', `/admin/v1/agents/${agent.id}`)).body.preset_id).toBe(preset.id);
    expect(await agentCount(preset.id)).toBe(1);
  });
});

/** Every agent endpoint: missing key, wrong key; those with an id also a malformed and an unknown id. */
type Endpoint = { method: string; path: (id: string) => string; body?: Record<string, unknown> };
const collectionEndpoints: Endpoint[] = [
  { method: 'GET', path: () => '/admin/v1/agents' },
  { method: 'POST', path: () => '/admin/v1/agents', body: { name: 'A' } },
];
const recordEndpoints: Endpoint[] = [
  { method: 'GET', path: (id) => `/admin/v1/agents/${id}` },
  { method: 'PATCH', path: (id) => `/admin/v1/agents/${id}`, body: { name: 'B' } },
  { method: 'DELETE', path: (id) => `/admin/v1/agents/${id}` },
  { method: 'POST', path: (id) => `/admin/v1/agents/${id}/regenerate-token` },
  { method: 'GET', path: (id) => `/admin/v1/agents/${id}/stats` },
];

describe.each([...collectionEndpoints, ...recordEndpoints])('$method $path', ({ method, path, body }) => {
  it('answers 401 without a key and with a wrong key, changing nothing', async () => {
    const agent = await createAgent(bed.p, { name: 'Kept' });
    const missing = await bed.p.request(method, path(agent.id), { body, apiKey: null });
    expectError(missing, 401, 'unauthorized');
    const wrong = await bed.p.request(method, path(agent.id), { body, apiKey: 'not-the-admin-key-at-all' });
    expectError(wrong, 401, 'unauthorized');
    expect(missing.body.error.message).not.toBe(wrong.body.error.message);
    expect(await bed.p.request('GET', `/admin/v1/agents/${agent.id}`)).toMatchObject({ status: 200, body: agent });
    expect((await bed.p.request('GET', '/admin/v1/agents')).body.data).toHaveLength(1);
  });
});

describe.each(recordEndpoints)('$method $path', ({ method, path, body }) => {
  it('answers 400 for a malformed id and 404 for an unknown one', async () => {
    for (const bad of ['agent-1', 'agt_short', unknownPresetId, 'AGT_01JD3N6V8M0000000000000000']) {
      expectInvalid(await bed.p.request(method, path(bad), { body }), ['params.id']);
    }
    const notFound = await bed.p.request(method, path(unknownAgentId), { body });
    expectError(notFound, 404, 'not_found');
    expect(notFound.body.error.message).toContain(unknownAgentId);
  });
});
