import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { Resampler } from '../../src/audio/resampler.js';
import { PocketsphinxStt } from '../../src/providers/pocketsphinx/pocketsphinx-stt.js';
import { fliteScript, type FliteVoice } from './flite-speech.js';
import { HttpReceiver } from './http-receiver.js';
import { startParley, type TestParley } from './parley.js';
import { TestRedis } from './redis-server.js';
import { VoiceClient } from './voice-client.js';

/**
 * Support for the real-speech tests: no scripted STT anywhere. The user is flite speech streamed
 * at real time, the session's STT is pocketsphinx, the operator's webhook a real HTTP server, and
 * what the agent says comes back as the audio frames the client received.
 */

const rate = 16_000;
export const pocketsphinxStt = { provider: 'pocketsphinx', model: 'en-us', language: null } as const;
export const espeakTts = { provider: 'espeak', model: 'espeak-ng', voice: 'en-us' } as const;
export const fliteTts = { provider: 'flite', model: 'flite', voice: 'slt' } as const;
export interface TtsSettings {
  provider: string;
  model: string;
  voice: string;
}

/** flite phrases and silences (ms) as a 16 kHz clip for VoiceClient.stream. */
export const clip = (voice: FliteVoice, ...parts: (string | number)[]) => ({
  samples: fliteScript(voice, ...parts),
  sampleRate: rate,
});

/** Streams silence in 200 ms pieces (a live microphone) until `done`, at most `maxMs`. */
export async function listenUntil(client: VoiceClient, done: () => boolean, maxMs = 60_000): Promise<void> {
  const quiet = { samples: new Int16Array(3_200), sampleRate: rate };
  const deadline = performance.now() + maxMs;
  while (!done() && performance.now() < deadline) await client.stream(quiet);
}

/** Prints a measured WER with what was said and heard, so the numbers are in the test output. */
export function report(title: string, wer: number, pairs: readonly { said: string; heard: string }[]): void {
  const lines = pairs.map((p) => `  said "${p.said}"\n  heard "${p.heard}"`);
  console.log(`${title}: WER ${(wer * 100).toFixed(1)} % over ${pairs.length} utterances\n${lines.join('\n')}`);
}

/**
 * The agent's speech as a client received it, by turn: every binary frame after a turn's
 * `audio_start` belongs to that turn (frames stop at `audio_end` or `interrupted`).
 */
export function recordAgentSpeech(client: VoiceClient): { of(turn: number): Int16Array; rate(turn: number): number } {
  const frames = new Map<number, Buffer[]>();
  const rates = new Map<number, number>();
  let turn: number | null = null;
  client.ws.on('message', (data: Buffer, isBinary: boolean) => {
    if (!isBinary) {
      const event = JSON.parse(String(data)) as { type: string; turn?: number; sample_rate?: number };
      if (event.type === 'audio_start') {
        turn = event.turn!;
        rates.set(turn, event.sample_rate!);
      }
      return;
    }
    if (turn === null) return;
    const list = frames.get(turn) ?? [];
    list.push(data);
    frames.set(turn, list);
  });
  return {
    of(n) {
      const bytes = Buffer.concat(frames.get(n) ?? []);
      return new Int16Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 2);
    },
    rate: (n) => rates.get(n) ?? rate,
  };
}

/** The agent's speech of one turn, at 16 kHz, transcribed by pocketsphinx in the test process. */
export async function hearAgent(stt: PocketsphinxStt, samples: Int16Array, sampleRate: number): Promise<string> {
  let audio = samples;
  if (sampleRate !== rate) {
    const resampler = new Resampler(sampleRate, rate);
    const head = resampler.push(samples);
    const tail = resampler.flush();
    audio = new Int16Array(head.length + tail.length);
    audio.set(head);
    audio.set(tail, head.length);
  }
  return stt.transcribe({ audio, sampleRate: rate, model: 'en-us', language: null });
}

export interface RealSpeechBed {
  readonly p: TestParley;
  readonly webhook: HttpReceiver;
  /** A pocketsphinx decoder pool of the test's own, to transcribe what the agent said. */
  readonly stt: PocketsphinxStt;
  /** A passthrough agent on a pocketsphinx preset with `tts`, `settings` on top. */
  agent(tts: TtsSettings, settings?: Record<string, unknown>): Promise<{ id: string; agent_token: string }>;
  /**
   * A WebSocket voice session (16 kHz both ways, or `sampleRate`) whose webhook calls `answer`
   * answers with the n-th transcript (0-based) of this session.
   */
  connect(
    agent: { agent_token: string },
    answer: (transcript: string, n: number) => string,
    sampleRate?: number,
  ): Promise<{ client: VoiceClient; sessionId: string }>;
  /** The transcripts the webhook received for a session, in order. */
  transcripts(sessionId: string): string[];
}

/** Registers the file's hooks: Redis, the webhook, Parley, the test's pocketsphinx; all stopped after. */
export function realSpeechBed(): RealSpeechBed {
  let redis: TestRedis | undefined;
  let webhook: HttpReceiver | undefined;
  let p: TestParley | undefined;
  let stt: PocketsphinxStt | undefined;
  const answers = new Map<string, (transcript: string, n: number) => string>();
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
      const n = transcripts(session_id).length - 1;
      return { body: { response: answers.get(session_id)?.(data.transcript, n) ?? 'Okay.' } };
    });
    p = await startParley(redis);
    stt = new PocketsphinxStt({ decoders: 1, maxLagMs: 60_000 });
  });
  afterEach(() => {
    for (const c of clients.splice(0)) c.close();
  });
  afterAll(async () => {
    for (const c of clients.splice(0)) c.close();
    await p?.close();
    await stt?.close();
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
    get stt() {
      return stt!;
    },
    async agent(tts, settings = {}) {
      const preset = await p!.request('POST', '/admin/v1/presets', {
        body: { name: `real speech ${tts.provider}`, stt: pocketsphinxStt, tts },
      });
      expect(preset.status).toBe(201);
      const agent = await p!.request('POST', '/admin/v1/agents', {
        body: {
          name: 'real speech',
          mode: 'passthrough',
          webhook_url: webhook!.url,
          preset_id: preset.body.id,
          ...settings,
        },
      });
      expect(agent.status).toBe(201);
      return agent.body as { id: string; agent_token: string };
    },
    async connect(agent, answer, sampleRate = rate) {
      const res = await p!.request('POST', '/sdk/v1/session', {
        apiKey: null,
        body: { agent_token: agent.agent_token, user_id: 'caller', transport: 'websocket' },
      });
      expect(res.status).toBe(201);
      const sessionId = res.body.session_id as string;
      answers.set(sessionId, answer);
      const client = await VoiceClient.connect(res.body.connection_url, res.body.connection_token, sampleRate);
      clients.push(client);
      await client.untilEvent('ready');
      return { client, sessionId };
    },
    transcripts,
  };
}
