import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent } from '../support/agents.js';
import { fliteScript } from '../support/flite-speech.js';
import { startParley, type TestParley } from '../support/parley.js';
import { TestRedis } from '../support/redis-server.js';
import { VoiceClient } from '../support/voice-client.js';

/**
 * An enhanced agent on a box where no LLM can run (no OPENAI_*, an empty MODELS_DIR: the built-in
 * preset hears with pocketsphinx and speaks with flite) says so to its caller: the session answer
 * carries the agent's warnings, each turn gets an `error` with its reason and every fix, then the
 * agent's fallback line in real flite speech (none when the line is empty); chat's 503 names every
 * fix readiness names.
 */

let redis: TestRedis;
let p: TestParley;
let modelsDir: string;

beforeAll(async () => {
  modelsDir = mkdtempSync(join(tmpdir(), 'parley-no-llm-models-'));
  redis = await TestRedis.start();
  p = await startParley(redis, { MODELS_DIR: modelsDir });
});

afterAll(async () => {
  await p?.close();
  await redis?.close();
  rmSync(modelsDir, { recursive: true, force: true });
});

/** Every fix readiness offers for the built-in preset's LLM: an OpenAI key or server, or a GGUF. */
const namesEveryFix = (text: unknown) => {
  expect(text).toContain('OPENAI_API_KEY');
  expect(text).toContain('OPENAI_BASE_URL');
  expect(text).toContain('local-llama: no model installed');
};

async function connect(agentToken: string) {
  const res = await p.request('POST', '/sdk/v1/session', {
    apiKey: null,
    body: { agent_token: agentToken, transport: 'websocket' },
  });
  expect(res.status).toBe(201);
  const client = await VoiceClient.connect(res.body.connection_url, res.body.connection_token);
  await client.untilEvent('ready');
  return { client, res };
}

describe('an enhanced agent with no LLM, on a voice call', () => {
  it('warns in the session answer, then tells each turn why and speaks its fallback line', async () => {
    const agent = await createAgent(p, { mode: 'enhanced', greeting: 'Hello, this is the front desk.' });
    const read = await p.request('GET', `/admin/v1/agents/${agent.id}`);
    expect(read.body.fallback_line).toBe("Sorry, I can't answer right now.");
    expect(read.body.warnings).toEqual([expect.stringMatching(/^llm: no llm provider is usable here: /)]);

    const { client, res } = await connect(agent.agent_token);
    try {
      expect(res.body.warnings).toEqual(read.body.warnings);
      namesEveryFix(res.body.warnings[0]);
      await client.untilEvent('audio_end', 1, 30_000); // the greeting (turn 0)

      // A spoken turn: heard by pocketsphinx, then no LLM to answer it.
      await client.stream({
        samples: fliteScript('slt', 300, 'what time do you open tomorrow', 1500),
        sampleRate: 16_000,
      });
      const error = await client.untilEvent('error', 1, 30_000);
      expect(error).toMatchObject({ code: 'turn_failed', reason: 'llm_not_configured' });
      expect(error.message).toMatch(/^the language model is not configured here: /);
      namesEveryFix(error.message);
      const end = await client.untilEvent('audio_end', 2, 30_000);
      expect(end.turn).toBe(1);
      const start = client.eventsOf('audio_start')[1]!;
      expect(start).toMatchObject({ turn: 1, sample_rate: 16_000 });
      expect(start.at).toBeGreaterThanOrEqual(error.at);
      // flite's fallback line, as audio between that turn's audio_start and audio_end
      const spoken = client.audio.filter((a) => a.at >= start.at && a.at <= end.at);
      expect(spoken.reduce((n, a) => n + a.samples, 0)).toBeGreaterThan(16_000 / 2);
      expect(client.answers().map((e) => e.turn)).toEqual([0]); // the greeting's caption; no answer for turn 1

      // A typed turn fails the same way; the session goes on.
      client.sendJson({ type: 'text', text: 'Are you there?' });
      expect(await client.untilEvent('error', 2, 30_000)).toMatchObject({ reason: 'llm_not_configured' });
      expect((await client.untilEvent('audio_end', 3, 30_000)).turn).toBe(2);
      expect(client.eventsOf('ended')).toEqual([]);
    } finally {
      client.close();
    }
    const errors = await p.request('GET', `/admin/v1/errors?session_id=${res.body.session_id}`);
    expect(errors.body.data.map((e: { type: string }) => e.type)).toEqual(['llm_not_configured', 'llm_not_configured']);
    namesEveryFix(errors.body.data[0].message);
  }, 90_000);

  it('with an empty fallback_line, the failed turn is told but stays silent', async () => {
    const agent = await createAgent(p, { mode: 'enhanced', fallback_line: '' });
    const { client } = await connect(agent.agent_token);
    try {
      client.sendJson({ type: 'text', text: 'Hello?' });
      expect(await client.untilEvent('error', 1)).toMatchObject({ code: 'turn_failed', reason: 'llm_not_configured' });
      // The next turn finds the session listening: nothing of turn 1 was playing (no audio, no
      // barge-in), and it fails the same way.
      client.sendJson({ type: 'text', text: 'Anyone?' });
      await client.untilEvent('error', 2);
      expect(client.eventsOf('transcript').map((e) => e.turn)).toEqual([1, 2]);
      expect(client.eventsOf('audio_start')).toEqual([]);
      expect(client.eventsOf('interrupted')).toEqual([]);
      expect(client.audio).toEqual([]);
    } finally {
      client.close();
    }
  });
});

describe('an enhanced agent with no LLM, in chat', () => {
  it('answers 503 llm_not_configured naming every fix readiness names', async () => {
    const agent = await createAgent(p, { mode: 'enhanced' });
    const chat = await p.request('POST', '/sdk/v1/chat', {
      apiKey: null,
      body: { agent_token: agent.agent_token, message: 'hello' },
    });
    expect(chat.status).toBe(503);
    expect(chat.body.error).toMatchObject({ code: 'llm_not_configured' });
    expect(chat.body.error.message).toMatch(/^the language model is not configured here: /);
    namesEveryFix(chat.body.error.message);
  });
});
