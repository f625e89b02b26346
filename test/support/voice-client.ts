import { WebSocket } from 'ws';
import type { AudioFrame } from '../../src/audio/audio-frame.js';
import type { AdminClient } from './admin-client.js';
import { FrameClock } from './frame-clock.js';

export interface ServerEventMessage {
  type: string;
  [key: string]: unknown;
}

/**
 * A test's end user on Parley's WebSocket media endpoint: streams PCM16 audio at a chosen pace and
 * records every event and audio byte that comes back, each with its arrival time.
 */
export class VoiceClient {
  readonly events: (ServerEventMessage & { at: number })[] = [];
  readonly audio: { samples: number; at: number }[] = [];
  /** Samples of audio this client has sent, at whatever rate each was sent. */
  samplesSent = 0;
  closeCode: number | null = null;
  closeReason = '';
  private readonly waiters: { test: () => boolean; resolve: () => void }[] = [];

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data, isBinary) => {
      if (isBinary) this.audio.push({ samples: (data as Buffer).byteLength / 2, at: performance.now() });
      else this.events.push({ ...(JSON.parse(String(data)) as ServerEventMessage), at: performance.now() });
      this.check();
    });
    ws.on('close', (code, reason) => {
      this.closeCode = code;
      this.closeReason = reason.toString();
      this.check();
    });
  }

  static async connect(connectionUrl: string, token: string, sampleRate = 16000): Promise<VoiceClient> {
    const url = new URL(connectionUrl);
    url.searchParams.set('token', token);
    url.searchParams.set('sample_rate', String(sampleRate));
    const ws = new WebSocket(url);
    const client = new VoiceClient(ws);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    return client;
  }

  /** Streams `audio` in `frameMs` frames, one every frameMs / speed ms (speed 1 = real time). */
  async stream(audio: AudioFrame, options: { frameMs?: number; speed?: number } = {}): Promise<void> {
    const frameMs = options.frameMs ?? 20;
    const speed = options.speed ?? 1;
    const n = Math.round((audio.sampleRate * frameMs) / 1000);
    const clock = new FrameClock(frameMs / speed);
    for (let i = 0; i < audio.samples.length; i += n) {
      if (this.ws.readyState !== WebSocket.OPEN) return;
      const frame = audio.samples.subarray(i, Math.min(audio.samples.length, i + n));
      this.ws.send(Buffer.from(frame.buffer, frame.byteOffset, frame.byteLength));
      this.samplesSent += frame.length;
      await clock.tick();
    }
  }

  sendJson(message: unknown): void {
    this.ws.send(JSON.stringify(message));
  }

  sendRaw(data: string | Buffer): void {
    this.ws.send(data);
  }

  eventsOf(type: string): (ServerEventMessage & { at: number })[] {
    return this.events.filter((e) => e.type === type);
  }

  /** Waits (bounded) until `test` holds. */
  async until(test: () => boolean, timeoutMs = 20_000, what = 'condition'): Promise<void> {
    if (test()) return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`timed out waiting for ${what}; events: ${this.events.map((e) => e.type).join(',')}`)),
        timeoutMs,
      );
      this.waiters.push({
        test,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
  }

  async untilEvent(type: string, count = 1, timeoutMs = 20_000): Promise<ServerEventMessage & { at: number }> {
    await this.until(() => this.eventsOf(type).length >= count, timeoutMs, `${count} × ${type}`);
    return this.eventsOf(type)[count - 1]!;
  }

  /** The whole answers so far (`response` with `final: true`), oldest first. */
  answers(): (ServerEventMessage & { at: number })[] {
    return this.events.filter((e) => e.type === 'response' && e['final'] === true);
  }

  /** Waits for the `count`-th whole answer (`response` with `final: true`). */
  async untilAnswer(count = 1, timeoutMs = 20_000): Promise<ServerEventMessage & { at: number }> {
    await this.until(() => this.answers().length >= count, timeoutMs, `${count} × final response`);
    return this.answers()[count - 1]!;
  }

  async untilClosed(timeoutMs = 20_000): Promise<void> {
    await this.until(() => this.closeCode !== null, timeoutMs, 'close');
  }

  close(): void {
    this.ws.close();
  }

  private check(): void {
    for (const w of [...this.waiters]) {
      if (w.test()) {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        w.resolve();
      }
    }
  }
}

/**
 * A WebSocket voice session of the agent: `POST /sdk/v1/session` (an error unless 201), then the
 * media socket, connected and `ready`.
 */
export async function connectVoice(
  api: AdminClient,
  agentToken: string,
  options: { sampleRate?: number; userId?: string; readyTimeoutMs?: number } = {},
): Promise<{ client: VoiceClient; sessionId: string }> {
  const body = {
    agent_token: agentToken,
    transport: 'websocket',
    ...(options.userId ? { user_id: options.userId } : {}),
  };
  const res = await api.request('POST', '/sdk/v1/session', { apiKey: null, body });
  if (res.status !== 201) throw new Error(`session: ${res.status} ${JSON.stringify(res.body)}`);
  const client = await VoiceClient.connect(res.body.connection_url, res.body.connection_token, options.sampleRate);
  await client.untilEvent('ready', 1, options.readyTimeoutMs);
  return { client, sessionId: res.body.session_id as string };
}
