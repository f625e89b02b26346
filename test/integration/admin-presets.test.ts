import { beforeAll, describe, expect, it } from 'vitest';
import { providerNames } from '../../src/schemas/provider-catalog.js';
import { parleyForFile, type TestResponse } from '../support/parley.js';

const bed = parleyForFile();

const unknownPresetId = 'pre_01jd3n6v8m0000000000000000';
const unknownAgentId = 'agt_01jd3n6v8m0000000000000000';

interface PresetBody {
  id: string;
  name: string;
  created_at: string;
  updated_at: string;
  [field: string]: unknown;
}

async function createPreset(body: Record<string, unknown>): Promise<PresetBody> {
  const res = await bed.p.request('POST', '/admin/v1/presets', { body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as PresetBody;
}

function expectError(res: TestResponse, status: number, code: string): void {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body.error.code).toBe(code);
  expect(typeof res.body.error.message).toBe('string');
  expect(res.body.error.request_id).toBe(res.headers.get('x-request-id'));
}

function expectInvalid(res: TestResponse, paths: string[]): { path: string; message: string }[] {
  expectError(res, 400, 'validation_error');
  const details = res.body.error.details as { path: string; message: string }[];
  expect(details.map((d) => d.path).sort()).toEqual([...paths].sort());
  for (const d of details) expect(d.message.length).toBeGreaterThan(0);
  return details;
}

/** A new preset's defaults: its sections left out are the built-in preset's (what is usable here). */
let defaults: Record<string, unknown>;
beforeAll(async () => {
  const builtIn = await bed.p.request('GET', '/admin/v1/presets/built-in');
  expect(builtIn.status).toBe(200);
  const { stt, llm, tts } = builtIn.body as Record<string, unknown>;
  defaults = { description: '', stt, llm, tts, embeddings: null, metadata: {}, agent_count: 0 };
});

describe('create', () => {
  it('fills every omitted section with the built-in defaults', async () => {
    const res = await bed.p.request('POST', '/admin/v1/presets', { body: { name: 'Local' } });
    expect(res.status).toBe(201);
    const preset = res.body as PresetBody;
    expect(preset.id).toMatch(/^pre_[0-9a-z]{26}$/);
    expect(res.headers.get('location')).toBe(`/admin/v1/presets/${preset.id}`);
    expect(preset).toEqual({
      ...defaults,
      id: preset.id,
      name: 'Local',
      created_at: preset.created_at,
      updated_at: preset.created_at,
    });
    expect((await bed.p.request('GET', `/admin/v1/presets/${preset.id}`)).body).toEqual(preset);
  });

  it('keeps given sections and fills their optional fields', async () => {
    const preset = await createPreset({
      name: 'Cloud',
      llm: { provider: 'openai', model: 'llama-3.1-8b-instruct' },
      tts: { provider: 'openai', model: 'tts-1', voice: 'nova', speed: 1.25 },
      metadata: { owner: 'ops' },
    });
    expect(preset.llm).toEqual({
      provider: 'openai',
      model: 'llama-3.1-8b-instruct',
      temperature: 0.7,
      max_tokens: 512,
    });
    expect(preset.tts).toEqual({ provider: 'openai', model: 'tts-1', voice: 'nova', speed: 1.25 });
    expect(preset.stt).toEqual(defaults.stt);
    expect(preset.embeddings).toEqual(defaults.embeddings);
    expect(preset.metadata).toEqual({ owner: 'ops' });
  });

  it('lists every bad field, naming the allowed providers and models', async () => {
    const res = await bed.p.request('POST', '/admin/v1/presets', {
      body: {
        name: '',
        stt: { provider: 'no-such-stt', model: 'nova-2' },
        llm: { provider: 'openai', model: 'gpt-4o-mini', temperature: 5 },
        tts: { provider: 'espeak', model: 'mbrola', voice: 'en' },
        embeddings: { provider: 'local' },
        flavour: 'x',
      },
    });
    const details = expectInvalid(res, [
      'body.name',
      'body.stt.provider',
      'body.llm.temperature',
      'body.tts.model',
      'body.embeddings.model',
      'body.flavour',
    ]);
    const byPath = Object.fromEntries(details.map((d) => [d.path, d.message]));
    for (const name of providerNames('stt')) expect(byPath['body.stt.provider']).toContain(name);
    expect(byPath['body.tts.model']).toContain('espeak-ng');
    expect(byPath['body.embeddings.model']).toBe('required');
    expect(byPath['body.flavour']).toBe('unknown field');
  });

  it('rejects an unknown field inside a section', async () => {
    const res = await bed.p.request('POST', '/admin/v1/presets', {
      body: { name: 'P', llm: { provider: 'openai', model: 'gpt-4o', top_k: 3 } },
    });
    expectInvalid(res, ['body.llm.top_k']);
  });
});

describe('list', () => {
  it('pages newest first with no duplicates or gaps and filters by name', async () => {
    const created: PresetBody[] = [];
    for (let i = 0; i < 12; i++) created.push(await createPreset({ name: i % 4 === 0 ? `Cloud ${i}` : `Local ${i}` }));
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: TestResponse = await bed.p.request(
        'GET',
        `/admin/v1/presets?limit=5${cursor === null ? '' : `&cursor=${cursor}`}`,
      );
      expect(res.status).toBe(200);
      seen.push(...res.body.data.map((x: PresetBody) => x.id));
      cursor = res.body.next_cursor;
      pages++;
    } while (cursor !== null && pages < 10);
    expect(pages).toBe(3);
    expect(seen).toEqual(created.map((x) => x.id).reverse());

    const cloud = await bed.p.request('GET', '/admin/v1/presets?q=CLOUD&limit=2');
    expect(cloud.body.data.map((x: PresetBody) => x.name)).toEqual(['Cloud 8', 'Cloud 4']);
    const rest = await bed.p.request('GET', `/admin/v1/presets?q=CLOUD&limit=2&cursor=${cloud.body.next_cursor}`);
    expect(rest.body.data.map((x: PresetBody) => x.name)).toEqual(['Cloud 0']);
    expect(rest.body.next_cursor).toBeNull();
  });

  it('shows the agent count of each preset', async () => {
    const used = await createPreset({ name: 'Used' });
    await createPreset({ name: 'Unused' });
    for (const name of ['A', 'B'])
      await bed.p.request('POST', '/admin/v1/agents', { body: { name, preset_id: used.id } });
    const res = await bed.p.request('GET', '/admin/v1/presets');
    expect(res.body.data.map((x: PresetBody) => [x.name, x.agent_count])).toEqual([
      ['Unused', 0],
      ['Used', 2],
    ]);
  });

  it('rejects bad query parameters, each by name', async () => {
    expectInvalid(await bed.p.request('GET', '/admin/v1/presets?limit=abc&to=tomorrow&q=' + 'x'.repeat(201)), [
      'query.limit',
      'query.to',
      'query.q',
    ]);
    expectInvalid(await bed.p.request('GET', '/admin/v1/presets?cursor=%21%21'), ['query.cursor']);
  });
});

describe('patch', () => {
  it('replaces a section whole and leaves the others alone', async () => {
    const preset = await createPreset({
      name: 'P',
      llm: { provider: 'openai', model: 'gpt-4o', temperature: 0.2, max_tokens: 100 },
    });
    const res = await bed.p.request('PATCH', `/admin/v1/presets/${preset.id}`, {
      body: { llm: { provider: 'openai', model: 'qwen2.5-7b-instruct' }, description: 'vLLM' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ...preset,
      description: 'vLLM',
      llm: { provider: 'openai', model: 'qwen2.5-7b-instruct', temperature: 0.7, max_tokens: 512 },
      updated_at: res.body.updated_at,
    });
    expect((await bed.p.request('GET', `/admin/v1/presets/${preset.id}`)).body).toEqual(res.body);
  });

  it('switches a section to another provider', async () => {
    const preset = await createPreset({ name: 'P' });
    const res = await bed.p.request('PATCH', `/admin/v1/presets/${preset.id}`, {
      body: { stt: { provider: 'openai', model: 'Systran/faster-whisper-small', language: 'de' } },
    });
    expect(res.status).toBe(200);
    expect(res.body.stt).toEqual({ provider: 'openai', model: 'Systran/faster-whisper-small', language: 'de' });
  });

  it('rejects an unknown provider listing the allowed ones', async () => {
    const preset = await createPreset({ name: 'P' });
    const res = await bed.p.request('PATCH', `/admin/v1/presets/${preset.id}`, {
      body: { tts: { provider: 'polly', model: 'neural', voice: 'Joanna' } },
    });
    const [detail] = expectInvalid(res, ['body.tts.provider']);
    for (const name of providerNames('tts')) expect(detail!.message).toContain(name);
    expect((await bed.p.request('GET', `/admin/v1/presets/${preset.id}`)).body).toEqual(preset);
  });

  it('rejects a model a local provider cannot run, listing the ones it can', async () => {
    const preset = await createPreset({ name: 'P' });
    const res = await bed.p.request('PATCH', `/admin/v1/presets/${preset.id}`, {
      body: {
        stt: { provider: 'local-whisper', model: 'openai/whisper-large-v3' },
        embeddings: { provider: 'local', model: 'bge-m3' },
      },
    });
    const details = expectInvalid(res, ['body.stt.model', 'body.embeddings.model']);
    expect(details.find((d) => d.path === 'body.stt.model')!.message).toContain('Xenova/whisper-tiny.en');
  });

  it('rejects unknown fields and nulls, each by name', async () => {
    const preset = await createPreset({ name: 'P' });
    const res = await bed.p.request('PATCH', `/admin/v1/presets/${preset.id}`, {
      body: { name: null, llm: null, agent_count: 3 },
    });
    expectInvalid(res, ['body.name', 'body.llm', 'body.agent_count']);
  });

  it('reports a bad id and a bad body together', async () => {
    const res = await bed.p.request('PATCH', '/admin/v1/presets/agt_01jd3n6v8m0000000000000000', {
      body: { name: '' },
    });
    expectInvalid(res, ['params.id', 'body.name']);
  });
});

describe('delete', () => {
  it('answers 204, then 404', async () => {
    const preset = await createPreset({ name: 'P' });
    const res = await bed.p.request('DELETE', `/admin/v1/presets/${preset.id}`);
    expect(res.status).toBe(204);
    expect(res.body).toBeUndefined();
    expectError(await bed.p.request('GET', `/admin/v1/presets/${preset.id}`), 404, 'not_found');
    expectError(await bed.p.request('DELETE', `/admin/v1/presets/${preset.id}`), 404, 'not_found');
    expect((await bed.p.request('GET', '/admin/v1/presets')).body.data).toEqual([]);
    const agent = await bed.p.request('POST', '/admin/v1/agents', { body: { name: 'A', preset_id: preset.id } });
    expectInvalid(agent, ['body.preset_id']);
  });
});

type Endpoint = { method: string; path: (id: string) => string; body?: Record<string, unknown> };
const collectionEndpoints: Endpoint[] = [
  { method: 'GET', path: () => '/admin/v1/presets' },
  { method: 'POST', path: () => '/admin/v1/presets', body: { name: 'New' } },
];
const recordEndpoints: Endpoint[] = [
  { method: 'GET', path: (id) => `/admin/v1/presets/${id}` },
  { method: 'PATCH', path: (id) => `/admin/v1/presets/${id}`, body: { name: 'Renamed' } },
  { method: 'DELETE', path: (id) => `/admin/v1/presets/${id}` },
];

describe.each([...collectionEndpoints, ...recordEndpoints])('$method $path', ({ method, path, body }) => {
  it('answers 401 without a key and with a wrong key, changing nothing', async () => {
    const preset = await createPreset({ name: 'Kept' });
    expectError(await bed.p.request(method, path(preset.id), { body, apiKey: null }), 401, 'unauthorized');
    expectError(
      await bed.p.request(method, path(preset.id), { body, apiKey: 'test-admin-key-012345678' }),
      401,
      'unauthorized',
    );
    expect(await bed.p.request('GET', `/admin/v1/presets/${preset.id}`)).toMatchObject({ status: 200, body: preset });
    expect((await bed.p.request('GET', '/admin/v1/presets')).body.data).toHaveLength(1);
  });
});

describe.each(recordEndpoints)('$method $path', ({ method, path, body }) => {
  it('answers 400 for a malformed id and 404 for an unknown one', async () => {
    for (const bad of ['default', 'pre_short', unknownAgentId]) {
      expectInvalid(await bed.p.request(method, path(bad), { body }), ['params.id']);
    }
    const notFound = await bed.p.request(method, path(unknownPresetId), { body });
    expectError(notFound, 404, 'not_found');
    expect(notFound.body.error.message).toContain(unknownPresetId);
  });
});
