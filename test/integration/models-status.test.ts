import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tinyGguf } from '../../scripts/make-tiny-gguf.js';
import type { ModelManifest } from '../../src/providers/models/model-manifest.js';
import { createAgent } from '../support/agents.js';
import { eventually } from '../support/eventually.js';
import { startParley, type TestParley } from '../support/parley.js';
import { TestRedis } from '../support/redis-server.js';

/**
 * Local model status has one source: with no model, then a model copied in, then a wrong file put
 * in its place, readiness and /health/providers say the same thing at every step, without a
 * restart. The pinned file is the random-weight GGUF of scripts/make-tiny-gguf.ts, and the manifest
 * pins its size and sha256 (the real one pins Qwen2.5's 491 MB file); the wrong file is the
 * tool-eager variant, a loadable GGUF of another sha256, so "never loaded" shows: loading it would
 * answer. The operator's own GGUF files sit anywhere under MODELS_DIR.
 */

const qwen = 'Qwen/Qwen2.5-0.5B-Instruct-GGUF';
const qwenFile = 'qwen2.5-0.5b-instruct-q4_k_m.gguf';
const pinned = tinyGguf('random');
const wrong = tinyGguf('tool-eager');
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

const manifest: ModelManifest = {
  version: 1,
  models: [
    {
      id: qwen,
      task: 'llm',
      default: true,
      description: 'the tiny GGUF fixture, pinned',
      license: 'apache-2.0',
      source: { hub: 'huggingface', repo: qwen, revision: 'main' },
      files: [{ path: qwenFile, size: pinned.length, sha256: sha256(pinned) }],
    },
  ],
};

let models: string;
let redis: TestRedis;
let p: TestParley;

beforeAll(async () => {
  models = await mkdtemp(join(tmpdir(), 'parley-models-status-'));
  redis = await TestRedis.start();
  p = await startParley(
    redis,
    { MODELS_DIR: models, PARLEY_LLAMA_THREADS: '1', PARLEY_LLAMA_CONTEXT_SIZE: '2048', PARLEY_LLAMA_GPU: 'off' },
    { providers: { manifest } },
  );
});
afterAll(async () => {
  await p?.close();
  await redis?.close();
  if (models !== undefined) await rm(models, { recursive: true, force: true });
});

/** Puts `bytes` at `relative` under MODELS_DIR the way the README says: written beside it, then renamed into place. */
async function place(relative: string, bytes: Buffer | string): Promise<void> {
  const path = join(models, relative);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(`${path}.part`, bytes);
  await rename(`${path}.part`, path);
}

interface Check {
  capability: string;
  provider: string;
  status: string;
  detail: string | null;
  needed_by: { count: number; unserved: number };
}

async function health() {
  const res = await p.request('GET', '/health/providers', { apiKey: null });
  expect(res.status).toBe(200);
  const llama = (res.body.providers as Check[]).find((c) => c.provider === 'local-llama')!;
  return { llama, builtIn: res.body.built_in.llm as { provider: string; usable: boolean; problem: string | null } };
}

async function readiness(agentId: string): Promise<{ ready: boolean; problems: string[] }> {
  const res = await p.request('GET', `/admin/v1/agents/${agentId}`);
  expect(res.status).toBe(200);
  return res.body.readiness.chat;
}

async function llamaAvailability() {
  const res = await p.request('GET', '/admin/v1/presets/available?capability=llm');
  return res.body.data.find((d: { provider: string }) => d.provider === 'local-llama');
}

describe('one source of model status', () => {
  it('a model copied in turns readiness and /health/providers ok together; a wrong file turns both invalid', async () => {
    // No model: the built-in preset's LLM cannot run, and both say why.
    const builtInAgent = await createAgent(p, { name: 'Built-in', mode: 'enhanced' });
    const before = await health();
    expect(before.llama).toMatchObject({ status: 'not_configured' });
    expect(before.llama.detail).toContain('no model installed');
    expect(before.builtIn.usable).toBe(false);
    const notYet = await readiness(builtInAgent.id);
    expect(notYet.ready).toBe(false);
    expect(notYet.problems.join('\n')).toContain('local-llama: no model installed');

    // The pinned file arrives: health turns ok, and in the same answer the built-in preset takes it
    // and no agent needing it is unserved; readiness says ready on the very next read.
    await place(`${qwen}/${qwenFile}`, pinned);
    const installed = await eventually(health, (h) => h.llama.status === 'ok', { what: 'local-llama ok' });
    expect(installed.llama.detail).toBe(`installed: ${qwen}`);
    expect(installed.builtIn).toMatchObject({ provider: 'local-llama', usable: true, problem: null });
    expect(installed.llama.needed_by).toMatchObject({ count: 1, unserved: 0 });
    expect(await readiness(builtInAgent.id)).toEqual({ ready: true, problems: [] });
    expect(await llamaAvailability()).toMatchObject({
      configured: true,
      models: [qwen],
      local_models: [{ model: qwen, status: 'installed', size_bytes: pinned.length, problem: null }],
    });

    // A preset naming the model, used by an agent that stays on it whatever the built-in preset does.
    const preset = await p.request('POST', '/admin/v1/presets', {
      body: { name: 'Qwen', llm: { provider: 'local-llama', model: qwen, temperature: 0, max_tokens: 8 } },
    });
    expect(preset.status).toBe(201);
    const presetAgent = await createAgent(p, { name: 'Preset', mode: 'enhanced', preset_id: preset.body.id });

    // A wrong file in its place (a GGUF model, but not the pinned bytes): both say invalid.
    await place(`${qwen}/${qwenFile}`, wrong);
    const invalid = await eventually(health, (h) => h.llama.status === 'error', { what: 'local-llama invalid' });
    expect(invalid.llama.detail).toBe(
      `${qwen} is invalid: ${qwenFile} has sha256 ${sha256(wrong)}, models/manifest.json pins ${sha256(pinned)}; ` +
        `re-download it with npm run models -- --only ${qwen}`,
    );
    expect(invalid.builtIn.usable).toBe(false);
    expect(invalid.builtIn.problem).toContain(`local-llama: ${qwen} is invalid`);
    const builtInNow = await readiness(builtInAgent.id);
    expect(builtInNow.ready).toBe(false);
    expect(builtInNow.problems.join('\n')).toContain(`local-llama: ${qwen} is invalid`);
    expect(await readiness(presetAgent.id)).toEqual({
      ready: false,
      problems: [
        `llm: local-llama: model ${qwen} is invalid: ${invalid.llama.detail!.slice(`${qwen} is invalid: `.length)}`,
      ],
    });
    expect(await llamaAvailability()).toMatchObject({
      configured: false,
      local_models: [{ model: qwen, status: 'invalid', size_bytes: wrong.length }],
    });

    // Never loaded: the chat fails before any model is read (loading the tool-eager file would answer).
    const chat = await p.request('POST', '/sdk/v1/chat', {
      apiKey: null,
      body: { agent_token: presetAgent.agent_token, message: 'Hello' },
    });
    expect(chat.status).toBe(503);
    expect(chat.body.error.code).toBe('llm_not_configured');
    expect(chat.body.error.message).toContain(`model ${qwen} is invalid`);

    // A too-short file: the size says it before any hash.
    await place(`${qwen}/${qwenFile}`, 'GGUF');
    const short = await eventually(health, (h) => h.llama.detail?.includes('is 4 bytes') === true, {
      what: 'size mismatch',
    });
    expect(short.llama.detail).toContain(`${qwenFile} is 4 bytes, models/manifest.json pins ${pinned.length}`);
  });
});

describe('GGUF files of your own', () => {
  it('are listed with their size, named by their path under MODELS_DIR, and answer once a preset names one', async () => {
    await place('mine/tiny-q4.gguf', pinned);
    await place('mine/notes.gguf', 'not a model');
    const entry = await eventually(
      llamaAvailability,
      (e) => (e.local_models as { model: string }[]).some((m) => m.model === 'mine/notes.gguf'),
      { what: 'own files listed' },
    );
    expect(entry.models).toContain('mine/tiny-q4.gguf');
    expect(entry.local_models).toEqual(
      expect.arrayContaining([
        { model: 'mine/tiny-q4.gguf', status: 'installed', size_bytes: pinned.length, problem: null },
        {
          model: 'mine/notes.gguf',
          status: 'invalid',
          size_bytes: 11,
          problem:
            'mine/notes.gguf is not a GGUF file (it does not begin with the bytes GGUF); replace it with a GGUF model file or remove it',
        },
      ]),
    );

    const preset = await p.request('POST', '/admin/v1/presets', {
      body: {
        name: 'Mine',
        llm: { provider: 'local-llama', model: 'mine/tiny-q4.gguf', temperature: 0, max_tokens: 8 },
      },
    });
    expect(preset.status).toBe(201);
    const agent = await createAgent(p, { name: 'Mine', mode: 'enhanced', preset_id: preset.body.id });
    expect(await readiness(agent.id)).toEqual({ ready: true, problems: [] });
    const chat = await p.request('POST', '/sdk/v1/chat', {
      apiKey: null,
      body: { agent_token: agent.agent_token, message: 'Hello' },
    });
    expect(chat.status).toBe(200);
    expect(chat.body.response.length).toBeGreaterThan(0);

    // Removed: readiness says so, and the model still in memory is no longer used.
    await rm(join(models, 'mine/tiny-q4.gguf'));
    const gone = await eventually(
      () => readiness(agent.id),
      (r) => !r.ready,
      { what: 'readiness after the removal' },
    );
    expect(gone.problems).toEqual([
      'llm: local-llama: model mine/tiny-q4.gguf is not installed (installed: none; no file MODELS_DIR/mine/tiny-q4.gguf)',
    ]);
    const after = await p.request('POST', '/sdk/v1/chat', {
      apiKey: null,
      body: { agent_token: agent.agent_token, message: 'Hello again' },
    });
    expect(after.status).toBe(503);
    expect(after.body.error.code).toBe('llm_not_configured');
    expect(after.body.error.message).toContain('model mine/tiny-q4.gguf is not installed');
  });

  it('a preset naming a file that is not there, not a GGUF model or outside MODELS_DIR is a 400 naming the problem', async () => {
    await place('mine/tiny-q4.gguf', pinned);
    const save = (model: string) =>
      p.request('POST', '/admin/v1/presets', { body: { name: 'Bad', llm: { provider: 'local-llama', model } } });
    const problemOf = async (model: string) => {
      const res = await save(model);
      expect(res.status, model).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
      expect(res.body.error.details).toHaveLength(1);
      expect(res.body.error.details[0].path).toBe('body.llm.model');
      return res.body.error.details[0].message as string;
    };
    const missing = await problemOf('mine/missing.gguf');
    expect(missing).toContain(`no file MODELS_DIR/mine/missing.gguf (${join(models, 'mine/missing.gguf')})`);
    expect(missing).toContain('.gguf files under MODELS_DIR: ');
    expect(missing).toContain('mine/tiny-q4.gguf');
    expect(await problemOf('mine/notes.gguf')).toBe(
      'mine/notes.gguf is not a GGUF file (it does not begin with the bytes GGUF)',
    );
    expect(await problemOf('../outside.gguf')).toContain('must stay under MODELS_DIR');
    expect(await problemOf('/etc/model.gguf')).toContain('an absolute path');
    expect(await problemOf('llama3')).toContain(`local-llama takes ${qwen} or a .gguf file under MODELS_DIR`);

    // The same on a change, beside the section's other bad fields.
    const created = await p.request('POST', '/admin/v1/presets', { body: { name: 'Good' } });
    const patch = await p.request('PATCH', `/admin/v1/presets/${created.body.id}`, {
      body: { llm: { provider: 'local-llama', model: 'mine/missing.gguf', temperature: 9 } },
    });
    expect(patch.status).toBe(400);
    expect(patch.body.error.details.map((d: { path: string }) => d.path).sort()).toEqual([
      'body.llm.model',
      'body.llm.temperature',
    ]);
  });
});
