/**
 * The streaming bench's remote services: the fakes of test/support, each on its own local server
 * speaking the real protocol, with the timings of issue 32:
 * - recognisers: the final transcript 150–300 ms (uniform) after the audio ends: Deepgram after
 *   `Finalize`, OpenAI Realtime after the commit, the OpenAI-compatible batch STT after the WAV's
 *   upload (the same processing time, once the whole upload is in);
 * - TTS: the first audio 150 ms after it is asked for (OpenAI-compatible `/v1/audio/speech` per
 *   piece; ElevenLabs per flush), 10 ms of audio per character;
 * - the webhook: a model writing 40 tokens (words) a second; the JSON one answers when it is done,
 *   the streamed one (NDJSON) sends each word as it goes.
 * The streaming recognisers say the script's lines in the order utterances end (`script`); the
 * batch one finds which question the upload holds by an excerpt of its samples.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { SentenceSplitter } from '../../src/pipeline/reply/sentences.js';
import { FakeDeepgram } from '../../test/support/fake-deepgram.js';
import { FakeElevenLabs } from '../../test/support/fake-elevenlabs.js';
import { FakeOpenAiRealtime } from '../../test/support/fake-openai-realtime.js';
import { OpenAiAudioServer } from '../../test/support/openai-audio-server.js';
import { StreamingWebhook, type StreamCall, type StreamHandler } from '../../test/support/streaming-webhook.js';
import { findProbe } from '../turn-taking/fake-providers.js';

export const timings = { sttMs: [150, 300] as [number, number], ttsFirstByteMs: 150, webhookTokensPerS: 40 };

/** What the webhook answers every question: two sentences, 23 words (tokens), the first clause at the 6th. */
export const answer =
  'We open at nine tomorrow morning, and the kitchen serves breakfast until eleven. Would you like me to book a table for you?';
const tokens = answer.match(/\S+\s*/g) ?? [];

/** A question the user asks: its words (the recognisers' punctuated transcript) and its audio. */
export interface Question {
  text: string;
  samples: Int16Array;
}

/** One webhook call and when the first piece of the answer Parley speaks (clause or sentence) was out. */
export interface HookCall {
  call: StreamCall;
  firstPieceAt: number | null;
}

export interface BenchFakes {
  audio: OpenAiAudioServer;
  deepgram: FakeDeepgram;
  realtime: FakeOpenAiRealtime;
  elevenlabs: FakeElevenLabs;
  jsonHook: StreamingWebhook;
  streamHook: StreamingWebhook;
  /** Every webhook call, both webhooks, in arrival order. */
  hookCalls: HookCall[];
  /** Batch uploads in which no question was found (would mean the audio was altered). */
  unrecognised: () => number;
  /** The lines the streaming recognisers say next, one per utterance, in the order utterances end. */
  script(lines: string[]): void;
  /** Parley's configuration pointing at the fakes. */
  env: Record<string, string>;
  close(): Promise<void>;
}

const between = ([min, max]: [number, number]) => min + Math.random() * (max - min);
const probeLength = 64;

export async function startFakes(questions: Question[]): Promise<BenchFakes> {
  const probes = questions.map((q) => {
    const mid = q.samples.length >> 1;
    return { text: q.text, probe: q.samples.slice(mid, mid + probeLength) };
  });
  let unrecognised = 0;
  const audio = await OpenAiAudioServer.start({
    async transcribe(call) {
      await sleep(between(timings.sttMs));
      const found = probes.find((p) => findProbe(call.audio.samples, p.probe) >= 0);
      // a part of an utterance (a pause inside it) may not hold the excerpt: no words yet
      if (found === undefined && call.audio.samples.length > 16_000) unrecognised++;
      return found?.text ?? '';
    },
    async speak() {
      await sleep(timings.ttsFirstByteMs);
      return {};
    },
  });
  const realtimeLines: string[] = [];
  const realtime = await FakeOpenAiRealtime.start({ script: () => realtimeLines, transcribeMs: timings.sttMs });
  const [min, max] = timings.sttMs;
  const deepgram = await FakeDeepgram.start({ resultDelayMs: min, resultJitterMs: max - min });
  const elevenlabs = await FakeElevenLabs.start({ firstByteDelayMs: timings.ttsFirstByteMs });
  const hookCalls: HookCall[] = [];
  const tokenMs = 1000 / timings.webhookTokensPerS;
  const json: StreamHandler = async (call, out) => {
    const entry: HookCall = { call, firstPieceAt: null };
    hookCalls.push(entry);
    await sleep(tokens.length * tokenMs);
    out.head('application/json');
    out.raw(JSON.stringify({ response: answer }));
    out.end();
    entry.firstPieceAt = performance.now();
  };
  const streamed: StreamHandler = async (call, out) => {
    const entry: HookCall = { call, firstPieceAt: null };
    hookCalls.push(entry);
    out.head('application/x-ndjson');
    const splitter = new SentenceSplitter();
    const start = performance.now();
    for (const [i, token] of tokens.entries()) {
      const wait = start + i * tokenMs - performance.now();
      if (wait > 0) await sleep(wait);
      if (out.gone) return;
      out.ndjson({ text: token });
      if (entry.firstPieceAt === null && splitter.push(token).length > 0) entry.firstPieceAt = performance.now();
    }
    out.ndjson({ done: true });
    out.end();
  };
  const jsonHook = await StreamingWebhook.start(json);
  const streamHook = await StreamingWebhook.start(streamed);
  return {
    audio,
    deepgram,
    realtime,
    elevenlabs,
    jsonHook,
    streamHook,
    hookCalls,
    unrecognised: () => unrecognised,
    script(lines) {
      deepgram.reset([...lines]);
      realtimeLines.splice(0, realtimeLines.length, ...lines);
    },
    env: {
      OPENAI_BASE_URL: audio.baseUrl,
      OPENAI_API_KEY: 'sk-test',
      PARLEY_OPENAI_REALTIME_URL: realtime.url,
      PARLEY_DEEPGRAM_URL: deepgram.url,
      PARLEY_DEEPGRAM_API_KEY: deepgram.apiKey,
      PARLEY_ELEVENLABS_URL: elevenlabs.url,
      PARLEY_ELEVENLABS_API_KEY: elevenlabs.apiKey,
    },
    async close() {
      await Promise.all([audio, realtime, deepgram, elevenlabs, jsonHook, streamHook].map((f) => f.close()));
    },
  };
}
