import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeTinyGguf } from '../../scripts/make-tiny-gguf.js';
import { validatorFor } from '../../src/schemas/json-schema.js';
import { createAgent } from '../support/agents.js';
import { HttpReceiver } from '../support/http-receiver.js';
import { startParley, type TestParley } from '../support/parley.js';
import { TestRedis } from '../support/redis-server.js';

/**
 * Post-call analysis with no network: the agent's preset names LLM provider `local-llama` with a
 * GGUF file of the operator's own under MODELS_DIR, the random-weight fixture, and no OPENAI_* is
 * set. The model's output is gibberish, but generation is held by a grammar built from the
 * analysis schema, so what it writes is still one JSON object that matches the operator's schema.
 */

const modelId = 'tiny-random-qwen2.gguf';

const schema = {
  type: 'object',
  properties: {
    party_size: { type: 'integer' },
    resolved: { type: 'boolean' },
    outcome: { type: 'string', enum: ['booked', 'declined', 'unclear'] },
    note: { type: 'string', maxLength: 40 },
  },
  required: ['party_size', 'resolved', 'outcome'],
};

let models: string;
let redis: TestRedis;
let webhook: HttpReceiver;
let events: HttpReceiver;
let p: TestParley;

beforeAll(async () => {
  models = await mkdtemp(join(tmpdir(), 'parley-analysis-llama-'));
  await writeTinyGguf(join(models, modelId), 'random');
  redis = await TestRedis.start();
  webhook = await HttpReceiver.start((req) => {
    const transcript = (req.json as { data: { transcript: string } }).data.transcript;
    return transcript.includes('bye')
      ? { body: { response: 'Goodbye!', action: { type: 'end_call' } } }
      : { body: { response: 'Booked for two at eight.' } };
  });
  events = await HttpReceiver.start(() => ({ status: 204 }));
  p = await startParley(
    redis,
    // On the CPU, so the random model's (greedy) output is the same on every machine.
    { MODELS_DIR: models, PARLEY_LLAMA_THREADS: '1', PARLEY_LLAMA_GPU: 'off', PARLEY_ANALYSIS_RETRY_BASE_MS: '50' },
  );
});
afterAll(async () => {
  await p?.close();
  await Promise.all([webhook?.close(), events?.close()]);
  await redis?.close();
  if (models !== undefined) await rm(models, { recursive: true, force: true });
});

describe('post-call analysis on local-llama', () => {
  it("writes a summary and the schema's fields with the agent's in-process model, held to the schema by a grammar", async () => {
    const preset = await p.request('POST', '/admin/v1/presets', {
      body: { name: 'Offline', llm: { provider: 'local-llama', model: modelId, temperature: 0, max_tokens: 3000 } },
    });
    expect(preset.status).toBe(201);
    const agent = await createAgent(p, {
      name: 'Analysed offline',
      mode: 'passthrough',
      webhook_url: webhook.url,
      events_url: events.url,
      preset_id: preset.body.id,
      analysis: { enabled: true, prompt: 'Note whether the booking was made.', schema },
    });

    // Two chat turns; the webhook's `end_call` on the second ends the session.
    const chat = (body: Record<string, unknown>) =>
      fetch(`${p.url}/sdk/v1/chat`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ agent_token: agent.agent_token, ...body }),
      });
    const first = (await (await chat({ message: 'A table for two at eight, please.' })).json()) as {
      session_id: string;
    };
    const sessionId = first.session_id;
    await chat({ message: 'Thanks, bye', session_id: sessionId }).catch(() => undefined);

    const ready = () =>
      events.requests
        .map((r) => r.json as { type: string; session_id: string; data: Record<string, unknown> })
        .find((e) => e.type === 'analysis_ready' && e.session_id === sessionId);
    await events.until(() => ready() !== undefined, 60_000);

    const session = await p.request('GET', `/admin/v1/sessions/${sessionId}`);
    const conversation = await p.request('GET', `/admin/v1/conversations/${session.body.conversation_id}`);
    const analysis = conversation.body.analysis as { summary: unknown; data: unknown; model: unknown };
    expect(typeof analysis.summary).toBe('string');
    expect(analysis.model).toBe(modelId);
    const validate = validatorFor(schema);
    expect(validate(analysis.data), JSON.stringify(validate.errors)).toBe(true);
    expect(Object.keys(analysis.data as object).sort()).toEqual(['note', 'outcome', 'party_size', 'resolved']);
    expect(ready()!.data).toMatchObject({ summary: analysis.summary, data: analysis.data, model: modelId });
    // No error records (an analysis_failed would follow three answers that did not match).
    const errors = await p.request('GET', `/admin/v1/errors?session_id=${sessionId}`);
    expect(errors.body.data).toEqual([]);
  }, 120_000);
});
