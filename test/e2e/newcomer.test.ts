/**
 * The first run as a newcomer meets it: `npm start`'s entry point with a fresh data dir (its own
 * redis-server, a generated admin key), no OPENAI_*, an empty MODELS_DIR, and only Debian's
 * speech packages (pocketsphinx, flite, espeak-ng) on the box. Start-up, readiness and health say
 * what is missing; the default passthrough voice agent hears real flite speech through
 * pocketsphinx; enhanced mode without an LLM fails fast with the reason; a SPEC-shaped session
 * request (no `transport`) gets a working WebSocket.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fliteScript } from '../support/flite-speech.js';
import { adminClient, type AdminClient, type RequestOptions } from '../support/admin-client.js';
import { HttpReceiver } from '../support/http-receiver.js';
import { isAlive, logsOf, startMain, stopMain, waitForLog, type MainProcess } from '../support/main-process.js';
import { freePort } from '../support/redis-server.js';
import { VoiceClient } from '../support/voice-client.js';
import { wordErrorRate } from '../support/wer.js';

interface ProviderEntry {
  capability: string;
  provider: string;
  needed_by: unknown;
}

const dirs: string[] = [];
let main: MainProcess;
let url: string;
let key: string;
let redisPid: number | undefined;
let webhook: HttpReceiver;

function temp(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

/** Requests with the admin key (`{ apiKey: null }` for the SDK and public routes). */
let admin: AdminClient;
const api = (method: string, path: string, body?: unknown, options: RequestOptions = {}) =>
  admin.request(method, path, { ...options, ...(body === undefined ? {} : { body }) });

beforeAll(async () => {
  webhook = await HttpReceiver.start(() => ({ body: { response: 'Sure.' } }));
  const port = await freePort();
  main = startMain({
    PARLEY_WORKERS: '1',
    PORT: String(port),
    PARLEY_DATA_DIR: temp('parley-newcomer-data-'),
    MODELS_DIR: temp('parley-newcomer-models-'),
  });
  await waitForLog(main, /^Parley listening on /, 60_000);
  url = `http://127.0.0.1:${port}`;
  key = main.stdout().match(/padm_[A-Za-z0-9_-]{43}/)![0];
  admin = adminClient(url, key);
  const redisLine = main.logs().find((l) => l['msg'] === 'embedded redis-server started');
  redisPid = typeof redisLine?.['pid'] === 'number' ? redisLine['pid'] : undefined;
}, 90_000);

afterAll(async () => {
  if (main !== undefined) await stopMain(main);
  if (redisPid !== undefined && isAlive(redisPid)) process.kill(redisPid, 'SIGKILL');
  await webhook?.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('a newcomer with Debian speech packages and nothing else', () => {
  it('start-up says, per capability, what is used or, in one short line, the fix', () => {
    const line = (capability: string) => main.logs().find((l) => l['capability'] === capability);
    expect(line('stt')).toMatchObject({
      level: 30,
      provider: 'pocketsphinx',
      msg: 'stt: pocketsphinx (en-us) for the built-in preset',
    });
    expect(line('tts')).toMatchObject({ provider: 'flite', msg: 'tts: flite (flite) for the built-in preset' });
    // Nothing can answer: the line names no provider or model as if in use, only what fixes it.
    expect(line('llm')).toEqual(
      expect.objectContaining({
        level: 40,
        msg: 'llm: nothing usable (enhanced mode cannot answer); fix: set OPENAI_API_KEY or OPENAI_BASE_URL, or npm run models',
      }),
    );
    expect(line('llm')).not.toHaveProperty('provider');
    expect(line('embeddings')).toMatchObject({
      level: 40,
      msg: 'embeddings: not usable (RAG searches documents by their words only); fix: npm run models',
    });
    const report = logsOf(main, /^(stt|llm|tts|embeddings): /);
    expect(report).toHaveLength(4);
    for (const l of report) {
      expect((l['msg'] as string).length).toBeLessThanOrEqual(120);
      expect(l['msg']).not.toMatch(/gpt-4o-mini|Xenova|local-llama|openai:/);
    }
  });

  it('the built-in preset is what works here, and health names what is missing', async () => {
    const builtIn = await api('GET', '/admin/v1/presets/built-in');
    expect(builtIn.status).toBe(200);
    expect(builtIn.body).toMatchObject({
      stt: { provider: 'pocketsphinx', model: 'en-us' },
      llm: { provider: 'openai' },
      tts: { provider: 'flite', voice: 'slt' },
      choices: { stt: { usable: true, problem: null }, llm: { usable: false }, tts: { usable: true } },
    });
    const health = await api('GET', '/health/providers');
    expect(health.body['status']).toBe('ok'); // no agent needs the missing LLM yet
    expect(health.body['built_in']).toEqual(builtIn.body['choices']);
  });

  it('a passthrough agent is ready; an enhanced one is saved with warnings and makes health degraded', async () => {
    const passthrough = await api('POST', '/admin/v1/agents', {
      name: 'Front desk',
      mode: 'passthrough',
      webhook_url: webhook.url,
    });
    expect(passthrough.status).toBe(201);
    expect(passthrough.body).toMatchObject({
      readiness: { voice: { ready: true, problems: [] }, chat: { ready: true, problems: [] } },
      warnings: [],
    });
    const enhanced = await api('POST', '/admin/v1/agents', { name: 'Concierge', mode: 'enhanced' });
    expect(enhanced.status).toBe(201);
    expect(enhanced.body['readiness']['chat']['ready']).toBe(false);
    expect(enhanced.body['warnings']).toEqual([
      expect.stringMatching(/^llm: no llm provider is usable here: openai: set OPENAI_API_KEY/),
    ]);
    const read = await api('GET', `/admin/v1/agents/${enhanced.body['id']}`);
    expect(read.body['readiness']).toEqual(enhanced.body['readiness']);

    const health = await api('GET', '/health/providers');
    expect(health.body['status']).toBe('degraded');
    const llm = (health.body.providers as ProviderEntry[]).find(
      (p) => p.capability === 'llm' && p.provider === 'openai',
    );
    expect(llm!.needed_by).toEqual({ count: 1, unserved: 1, agents: [{ id: enhanced.body['id'], name: 'Concierge' }] });
    const pocketsphinx = (health.body.providers as ProviderEntry[]).find((p) => p.provider === 'pocketsphinx');
    expect(pocketsphinx!.needed_by).toMatchObject({ count: 2, unserved: 0 });
    // Without the admin key the agents are counted, never named.
    const anonymous = (await api('GET', '/health/providers', undefined, { apiKey: null })).body;
    expect(
      (anonymous.providers as ProviderEntry[]).find((p) => p.capability === 'llm' && p.provider === 'openai')!
        .needed_by,
    ).toEqual({
      count: 1,
      unserved: 1,
      agents: [],
    });

    // Enhanced chat fails fast, with the reason, and an error record for the operator.
    const chat = await api(
      'POST',
      '/sdk/v1/chat',
      { agent_token: enhanced.body['agent_token'], message: 'hello' },
      { apiKey: null },
    );
    expect(chat.status).toBe(503);
    expect(chat.body['error']).toMatchObject({ code: 'llm_not_configured' });
    expect(chat.body['error']['message']).toContain('OPENAI_API_KEY');
    const errors = await api('GET', `/admin/v1/errors?agent_id=${enhanced.body['id']}`);
    expect(errors.body['data'][0]).toMatchObject({ type: 'llm_not_configured', status_code: null });
  });

  it('the passthrough voice agent hears real speech on a SPEC session request (no transport)', async () => {
    const agents = await api('GET', '/admin/v1/agents?q=front');
    const token = (await api('POST', `/admin/v1/agents/${agents.body['data'][0]['id']}/regenerate-token`)).body[
      'agent_token'
    ];
    const session = await api('POST', '/sdk/v1/session', { agent_token: token }, { apiKey: null });
    expect(session.status).toBe(201);
    expect(session.body['connection_url']).toBe(`${url.replace('http', 'ws')}/sdk/v1/media`);
    const client = await VoiceClient.connect(session.body['connection_url'], session.body['connection_token']);
    try {
      await client.untilEvent('ready');
      const said = 'i would like to book a table for four people on friday evening';
      await client.stream({ samples: fliteScript('slt', 300, said, 1500), sampleRate: 16_000 });
      await client.untilAnswer(1, 30_000);
      const heard = webhook.requests
        .map((r) => r.json as { session_id: string; data: { transcript: string } })
        .filter((b) => b.session_id === session.body['session_id'])
        .map((b) => b.data.transcript);
      expect(heard).toHaveLength(1);
      expect(wordErrorRate([{ said, heard: heard[0]! }])).toBeLessThanOrEqual(0.25);
    } finally {
      client.close();
    }
  }, 60_000);

  it('a document is searchable by its words while no embedding model is installed', async () => {
    const agents = await api('GET', '/admin/v1/agents?q=front');
    const agentId = agents.body.data[0].id as string;
    const form = new FormData();
    const text = 'Our opening hours: the restaurant opens at noon and closes at eleven on Fridays.';
    form.append('file', new Blob([text], { type: 'text/markdown' }), 'hours.md');
    const upload = await fetch(`${url}/admin/v1/agents/${agentId}/documents`, {
      method: 'POST',
      headers: { 'X-API-Key': key },
      body: form,
    });
    expect(upload.status).toBe(202);
    const { id } = (await upload.json()) as { id: string };
    await expect
      .poll(async () => (await api('GET', `/admin/v1/agents/${agentId}/documents/${id}`)).body.status, {
        timeout: 30_000,
      })
      .toBe('ready');
    const doc = (await api('GET', `/admin/v1/agents/${agentId}/documents/${id}`)).body;
    expect(doc).toMatchObject({ search_index: 'lexical' });
    expect(doc.vectors_error).toContain('npm run models');
    const hits = await api(
      'GET',
      `/admin/v1/agents/${agentId}/documents/search?q=${encodeURIComponent('opening hours on Fridays')}`,
    );
    expect(hits.status).toBe(200);
    expect(hits.body.data[0]).toMatchObject({ document_id: id });
  });
});
