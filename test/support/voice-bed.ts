import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { HttpReceiver } from './http-receiver.js';
import { startParley, type TestParley } from './parley.js';
import { TestRedis } from './redis-server.js';
import { connectVoice, type VoiceClient } from './voice-client.js';

/**
 * A voice test file's bed: a redis-server, the operator's webhook (a real HTTP server that records
 * every call) and a Parley, started before the file's tests and stopped after them; agents on a
 * preset of the test's providers, and WebSocket sessions of them, each client closed after its test.
 */

export const espeakTts = { provider: 'espeak', model: 'espeak-ng', voice: 'en-us' } as const;

export interface PresetSettings {
  name?: string;
  stt?: { provider: string; model: string; language: string | null };
  tts?: { provider: string; model: string; voice: string };
}

/** An agent as `POST /admin/v1/agents` answered it. */
export type AgentBody = { id: string; agent_token: string } & Record<string, unknown>;

/** Answers the webhook's call for the `n`-th (0-based) transcript of a session. */
export type WebhookAnswer = (transcript: string, n: number) => string;

export interface VoiceBedOptions {
  /** Parley's environment; read when the bed starts, after the file's own earlier `beforeAll` hooks (a fake's URL). */
  env?: () => Record<string, string>;
  /** What the webhook answers in sessions that `connect` gave no `answer`; default "Sure.". */
  answer?: string;
}

export interface VoiceBed {
  readonly p: TestParley;
  readonly webhook: HttpReceiver;
  /** A passthrough agent answered by the bed's webhook, on a preset of `preset` (espeak-ng speaking unless it names a TTS), `settings` on top. */
  agent(preset: PresetSettings, settings?: Record<string, unknown>): Promise<AgentBody>;
  /** A WebSocket session of the agent (16 kHz both ways, or `sampleRate`), `ready`. */
  connect(
    agent: { agent_token: string },
    options?: { answer?: WebhookAnswer; sampleRate?: number },
  ): Promise<{ client: VoiceClient; sessionId: string }>;
  /** The transcripts the webhook received for a session, in order. */
  transcripts(sessionId: string): string[];
}

export function voiceBed(options: VoiceBedOptions = {}): VoiceBed {
  let redis: TestRedis | undefined;
  let webhook: HttpReceiver | undefined;
  let p: TestParley | undefined;
  const answers = new Map<string, WebhookAnswer>();
  const clients: VoiceClient[] = [];
  const body = (r: { json: unknown }) => r.json as { session_id: string; data: { transcript: string } };
  const transcripts = (sessionId: string) =>
    webhook!.requests
      .map(body)
      .filter((b) => b.session_id === sessionId)
      .map((b) => b.data.transcript);

  beforeAll(async () => {
    redis = await TestRedis.start();
    webhook = await HttpReceiver.start((req) => {
      const { session_id, data } = body(req);
      const answer = answers.get(session_id)?.(data.transcript, transcripts(session_id).length - 1);
      return { body: { response: answer ?? options.answer ?? 'Sure.' } };
    });
    p = await startParley(redis, options.env?.() ?? {});
  });
  afterEach(() => {
    for (const c of clients.splice(0)) c.close();
  });
  afterAll(async () => {
    for (const c of clients.splice(0)) c.close();
    await p?.close();
    await webhook?.close();
    await redis?.close();
  });

  return {
    get p() {
      return p!;
    },
    get webhook() {
      return webhook!;
    },
    async agent(preset, settings = {}) {
      const made = await p!.request('POST', '/admin/v1/presets', {
        body: { name: `voice ${preset.stt?.provider ?? 'preset'}`, tts: espeakTts, ...preset },
      });
      expect(made.status).toBe(201);
      const agent = await p!.request('POST', '/admin/v1/agents', {
        body: { name: 'voice', mode: 'passthrough', webhook_url: webhook!.url, preset_id: made.body.id, ...settings },
      });
      expect(agent.status).toBe(201);
      return agent.body as AgentBody;
    },
    async connect(agent, { answer, sampleRate = 16_000 } = {}) {
      const session = await connectVoice(p!, agent.agent_token, { sampleRate, userId: 'caller' });
      clients.push(session.client);
      if (answer !== undefined) answers.set(session.sessionId, answer);
      return session;
    },
    transcripts,
  };
}
