import { afterAll, beforeAll } from 'vitest';
import { PocketsphinxStt } from '../../src/providers/pocketsphinx/pocketsphinx-stt.js';
import { fliteScript, type FliteVoice } from './flite-speech.js';
import type { HttpReceiver } from './http-receiver.js';
import { resample } from './pcm.js';
import type { TestParley } from './parley.js';
import type { VoiceClient } from './voice-client.js';
import { voiceBed, type WebhookAnswer } from './voice-bed.js';

/**
 * Support for the real-speech tests: no scripted STT anywhere. The user is flite speech streamed
 * at real time, the session's STT is pocketsphinx, the operator's webhook a real HTTP server, and
 * what the agent says comes back as the audio frames the client received.
 */

const rate = 16_000;
export const pocketsphinxStt = { provider: 'pocketsphinx', model: 'en-us', language: null } as const;
export { espeakTts } from './voice-bed.js';
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
  const audio = sampleRate === rate ? samples : resample(samples, sampleRate, rate);
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
    answer: WebhookAnswer,
    sampleRate?: number,
  ): Promise<{ client: VoiceClient; sessionId: string }>;
  /** The transcripts the webhook received for a session, in order. */
  transcripts(sessionId: string): string[];
}

/** Registers the file's hooks: the voice bed (Redis, the webhook, Parley), the test's pocketsphinx; all stopped after. */
export function realSpeechBed(): RealSpeechBed {
  const bed = voiceBed({ answer: 'Okay.' });
  let stt: PocketsphinxStt | undefined;
  beforeAll(() => {
    stt = new PocketsphinxStt({ decoders: 1, maxLagMs: 60_000 });
  });
  afterAll(async () => {
    await stt?.close();
  });
  return {
    get p() {
      return bed.p;
    },
    get webhook() {
      return bed.webhook;
    },
    get stt() {
      return stt!;
    },
    agent: (tts, settings = {}) =>
      bed.agent(
        { name: `real speech ${tts.provider}`, stt: pocketsphinxStt, tts },
        { name: 'real speech', ...settings },
      ),
    connect: (agent, answer, sampleRate = rate) => bed.connect(agent, { answer, sampleRate }),
    transcripts: (sessionId) => bed.transcripts(sessionId),
  };
}
