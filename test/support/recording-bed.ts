import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { defaultPlayoutTiming } from '../../src/pipeline/reply/playout.js';
import { HttpReceiver } from './http-receiver.js';
import { startParley, type TestParley } from './parley.js';
import { recordAgentSpeech } from './real-speech.js';
import { TestRedis } from './redis-server.js';
import { VoiceClient } from './voice-client.js';

const rate = 16_000;

/** A recorded agent's WebSocket call as a test holds it. */
export interface RecordedCall {
  client: VoiceClient;
  /** The agent's speech as the client received it, by turn. */
  speech: ReturnType<typeof recordAgentSpeech>;
  /** When the agent's first audio went out to the client, as the client's own clock tells it best (`playoutStart`). */
  firstAudioAt: () => number;
  conversationId: string;
}

export interface RecordingBed {
  readonly p: TestParley;
  /** The recording of a conversation of an agent, where Parley writes it. */
  path(agentId: string, conversationId: string): string;
  /** A passthrough agent on a pocketsphinx + espeak-ng preset, `settings` on top. */
  agent(settings: Record<string, unknown>): Promise<{ id: string; agent_token: string }>;
  /** A WebSocket voice session of the agent (16 kHz both ways), once `ready`. */
  connect(agent: { agent_token: string }): Promise<RecordedCall>;
}

/**
 * Registers the file's hooks: Redis, a webhook answering "Okay.", and Parley with its
 * PARLEY_DATA_DIR in a temporary folder (removed after the file's tests).
 */
export function recordingBed(): RecordingBed {
  let dir = '';
  let redis: TestRedis | undefined;
  let webhook: HttpReceiver | undefined;
  let p: TestParley | undefined;
  let presetId = '';
  const clients: VoiceClient[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'parley-recordings-'));
    redis = await TestRedis.start();
    webhook = await HttpReceiver.start(() => ({ body: { response: 'Okay.' } }));
    p = await startParley(redis, { PARLEY_DATA_DIR: dir });
    const preset = await p.request('POST', '/admin/v1/presets', {
      body: {
        name: 'recordings',
        stt: { provider: 'pocketsphinx', model: 'en-us', language: null },
        tts: { provider: 'espeak', model: 'espeak-ng', voice: 'en-us' },
      },
    });
    expect(preset.status).toBe(201);
    presetId = preset.body.id as string;
  });

  afterAll(async () => {
    for (const c of clients) c.close();
    await p?.close();
    await webhook?.close();
    await redis?.close();
    await rm(dir, { recursive: true, force: true });
  });

  return {
    get p() {
      return p!;
    },
    path: (agentId, conversationId) => join(dir, 'recordings', agentId, `${conversationId}.wav`),
    async agent(settings) {
      const res = await p!.request('POST', '/admin/v1/agents', {
        body: { name: 'recorded', mode: 'passthrough', webhook_url: webhook!.url, preset_id: presetId, ...settings },
      });
      expect(res.status).toBe(201);
      return res.body as { id: string; agent_token: string };
    },
    async connect(agent) {
      const res = await p!.request('POST', '/sdk/v1/session', {
        apiKey: null,
        body: { agent_token: agent.agent_token, user_id: 'caller', transport: 'websocket' },
      });
      expect(res.status).toBe(201);
      const client = await VoiceClient.connect(res.body.connection_url, res.body.connection_token);
      clients.push(client);
      const speech = recordAgentSpeech(client);
      const greeting: Arrival[] = [];
      let turn: number | null = null;
      client.ws.on('message', (data: Buffer, isBinary: boolean) => {
        if (!isBinary) {
          const event = JSON.parse(String(data)) as { type: string; turn?: number };
          if (event.type === 'audio_start') turn = event.turn!;
        } else if (turn === 0) greeting.push({ at: performance.now(), samples: data.byteLength / 2 });
      });
      await client.untilEvent('ready');
      const session = await p!.request('GET', `/admin/v1/sessions/${res.body.session_id as string}`);
      return {
        client,
        speech,
        firstAudioAt: () => playoutStart(greeting),
        conversationId: session.body.conversation_id as string,
      };
    },
  };
}

/** One audio message as the client read it: when, and how many samples it held. */
interface Arrival {
  at: number;
  samples: number;
}

/**
 * When the first of a turn's audio messages was sent. The client shares the server's event loop,
 * so it reads a message late whenever the server is busy (it is, right after the first frames:
 * the rest of the speech comes from the TTS then), never early; the first message alone can read
 * tens of ms late. The playout sends nothing more than `leadMs` before it plays, so every message
 * bounds the start: it was sent no earlier than the start plus the audio before it, less `leadMs`.
 * The tightest bound is the start, give or take what the client read promptly.
 */
function playoutStart(arrivals: readonly Arrival[]): number {
  let start = Number.POSITIVE_INFINITY;
  let before = 0;
  for (const { at, samples } of arrivals) {
    start = Math.min(start, at - Math.max(0, (before * 1000) / rate - defaultPlayoutTiming.leadMs));
    before += samples;
  }
  return start;
}

/** Quiet noise with no zero sample (below the VAD's floor): every sample of it is findable in the file. */
export function noise(ms: number, seed = 1): Int16Array {
  const out = new Int16Array((rate * ms) / 1000);
  let x = seed;
  for (let i = 0; i < out.length; i++) {
    x = (x * 1_103_515_245 + 12_345) & 0x7fffffff;
    out[i] = ((x >> 8) % 60) + 20 * ((x & 1) === 0 ? 1 : -1);
  }
  return out.map((s) => (s === 0 ? 7 : s));
}

/** Streams `samples` (16 kHz) at real time; resolves with the time its first frame was sent. */
export async function stream(client: VoiceClient, samples: Int16Array): Promise<number> {
  const at = performance.now();
  await client.stream({ samples, sampleRate: rate });
  return at;
}

/** The caller hangs up; resolves once the session has ended (its recording is complete by then). */
export async function hangUp(client: VoiceClient): Promise<void> {
  client.sendJson({ type: 'end' });
  await client.untilEvent('ended');
}

/** Rewrites a recording's header sizes to `dataBytes` (as a flush not yet patched leaves them). */
export async function setHeaderSizes(path: string, dataBytes: number): Promise<void> {
  const file = await open(path, 'r+');
  const sizes = Buffer.alloc(4);
  sizes.writeUInt32LE(36 + dataBytes, 0);
  await file.write(sizes, 0, 4, 4);
  sizes.writeUInt32LE(dataBytes, 0);
  await file.write(sizes, 0, 4, 40);
  await file.close();
}
