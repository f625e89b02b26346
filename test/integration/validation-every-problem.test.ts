import { describe, expect, it } from 'vitest';
import { createAgent } from '../support/agents.js';
import { parleyForFile, startParley, testAdminKey, type TestResponse } from '../support/parley.js';

// `validation_error` names every bad field of a request at once (issue 20, item 7): no problem
// waits for the others to be fixed, whether it is a field's own check, one across fields (a
// duplicate tool name, a model of another provider) or one that depends on the server's
// configuration (a tool URL and PARLEY_ALLOW_HTTP_TOOLS).

const bed = parleyForFile();

/** A 400 `validation_error` whose details name exactly these fields (each at least once), each with a message. */
function expectProblems(res: TestResponse, paths: string[]): void {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body.error.code).toBe('validation_error');
  const details = res.body.error.details as { path: string; message: string }[];
  expect([...new Set(details.map((d) => d.path))].sort()).toEqual([...paths].sort());
  for (const d of details) expect(d.message.length, d.path).toBeGreaterThan(0);
}

function tool(fields: Record<string, unknown>): Record<string, unknown> {
  return {
    name: 'lookup_order',
    description: 'Finds an order.',
    parameters: { type: 'object', properties: { id: { type: 'string' } } },
    url: 'https://tools.example.com/orders',
    ...fields,
  };
}

/** Several tools, each bad in another way, most of them with a URL that may not be called without PARLEY_ALLOW_HTTP_TOOLS. */
const badTools = [
  tool({ name: 'first', url: 'http://tools.example.com/first' }),
  tool({ name: 'second', description: 42, url: 'http://tools.example.com/second' }),
  tool({ name: 'third', parameters: { type: 'string' } }),
  tool({ name: 'first', url: 'http://10.0.0.7:8080/again' }),
  tool({ name: 'fifth', url: 'not a url', timeout_ms: 5 }),
  tool({ name: 'sixth', url: 'http://tools.example.com/sixth', colour: 'red' }),
  7,
];

/** Where each problem of `badTools` is reported, with the http URLs (`withHttpUrls`) or without (PARLEY_ALLOW_HTTP_TOOLS). */
function toolPaths(withHttpUrls: boolean): string[] {
  return [
    'body.tools.1.description',
    'body.tools.2.parameters',
    'body.tools.3.name',
    'body.tools.4.url',
    'body.tools.4.timeout_ms',
    'body.tools.5.colour',
    'body.tools.6',
    ...(withHttpUrls ? ['body.tools.0.url', 'body.tools.1.url', 'body.tools.3.url', 'body.tools.5.url'] : []),
  ];
}

/** Bad agent fields besides the tools: a type error, a range, an enum, an unknown field, metadata. */
const badFields = {
  vad_threshold: 'loud',
  min_silence_ms: 1,
  mode: 'chatty',
  colour: 'blue',
  metadata: { ...Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])), nested: { no: true } },
};
const fieldPaths = [
  'body.vad_threshold',
  'body.min_silence_ms',
  'body.mode',
  'body.colour',
  'body.metadata',
  'body.metadata.nested',
];

describe('an agent with several bad fields and tools', () => {
  it('update: one 400 lists every field, every tool problem and every tool URL that may not be called', async () => {
    const agent = await createAgent(bed.p, { name: 'Front desk' });
    const res = await bed.p.request('PATCH', `/admin/v1/agents/${agent.id}`, {
      body: { name: '', tools: badTools, ...badFields },
    });
    expectProblems(res, ['body.name', ...fieldPaths, ...toolPaths(true)]);
    const details = res.body.error.details as { path: string; message: string }[];
    expect(details).toContainEqual({ path: 'body.tools.0.url', message: expect.stringMatching(/https/) });
    expect(details).toContainEqual({ path: 'body.tools.3.name', message: 'duplicate tool name first' });
    expect(details).toContainEqual({ path: 'body.metadata', message: 'at most 50 keys' });
    expect(details.filter((d) => d.path === 'body.tools.4.url')).toHaveLength(1);
    const unchanged = await bed.p.request('GET', `/admin/v1/agents/${agent.id}`);
    expect(unchanged.body.tools).toEqual([]);
  });

  it('create: the same, with the name required', async () => {
    const res = await bed.p.request('POST', '/admin/v1/agents', { body: { tools: badTools, ...badFields } });
    expectProblems(res, ['body.name', ...fieldPaths, ...toolPaths(true)]);
    expect((await bed.p.request('GET', '/admin/v1/agents')).body.data).toEqual([]);
  });

  it('tool URLs alone: every one that may not be called, when all else is valid', async () => {
    const tools = [
      tool({ name: 'a', url: 'http://tools.example.com/a' }),
      tool({ name: 'b', url: 'http://127.0.0.1:9/b' }),
      tool({ name: 'c', url: 'http://tools.example.com/c' }),
    ];
    const res = await bed.p.request('POST', '/admin/v1/agents', { body: { name: 'Desk', tools } });
    expectProblems(res, ['body.tools.0.url', 'body.tools.2.url']);
  });

  it('with PARLEY_ALLOW_HTTP_TOOLS the http URLs pass and every other problem is still listed', async () => {
    const open = await startParley(bed.redis, { PARLEY_ALLOW_HTTP_TOOLS: 'true' });
    try {
      const res = await open.request('POST', '/admin/v1/agents', { body: { name: '', tools: badTools, ...badFields } });
      expectProblems(res, ['body.name', ...fieldPaths, ...toolPaths(false)]);
    } finally {
      await open.close();
    }
  });
});

describe('a preset with several bad fields', () => {
  it('names a model the provider cannot run beside the section’s other bad fields', async () => {
    const res = await bed.p.request('POST', '/admin/v1/presets', {
      body: {
        name: '',
        stt: { provider: 'pocketsphinx', model: 'no-such-model', language: 5 },
        llm: { provider: 'local-llama', model: 'no-such-model', temperature: 'warm' },
        tts: { provider: 'no-such-provider', model: 'x', voice: 'y' },
        metadata: { '': 1 },
      },
    });
    expectProblems(res, [
      'body.name',
      'body.stt.language',
      'body.stt.model',
      'body.llm.temperature',
      'body.llm.model',
      'body.tts.provider',
      'body.metadata.',
    ]);
  });
});

describe('a document upload with several bad fields', () => {
  it('names a missing file and a name too long together', async () => {
    const agent = await createAgent(bed.p, { name: 'Docs' });
    const form = new FormData();
    form.append('name', 'n'.repeat(201));
    const res = await fetch(`${bed.p.url}/admin/v1/agents/${agent.id}/documents`, {
      method: 'POST',
      headers: { 'X-API-Key': testAdminKey },
      body: form,
    });
    const body = (await res.json()) as { error: { code: string; details: { path: string }[] } };
    expect(res.status, JSON.stringify(body)).toBe(400);
    expect(body.error.code).toBe('validation_error');
    expect(body.error.details.map((d) => d.path).sort()).toEqual(['body.file', 'body.name']);
  });
});
