/**
 * The turn-taking bench's providers, with the fixed delays of the issue (STT 150 ms, LLM first
 * token 300 ms, TTS first audio 100 ms), so endpointing and Parley's own work are what differs
 * between settings:
 * - STT (in process): after 150 ms, the words of every corpus phrase found in the audio, in order.
 *   A phrase is found by an exact 64-sample excerpt of its middle: the session hands the STT the
 *   client's 16 kHz samples untouched, so this is exact, and a partial utterance is transcribed
 *   partially, as a real STT would.
 * - TTS (in process): after 100 ms, a quiet tone lasting 60 ms per character, in 100 ms chunks.
 * - LLM (a local HTTP server speaking OpenAI's streaming chat completions): the first token after
 *   300 ms, then one word every 10 ms.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { SpeechProviders } from '../../src/providers/speech-providers.js';
import type { SttProvider } from '../../src/providers/stt.js';
import type { TtsProvider } from '../../src/providers/tts.js';
import { completion, textEvents } from '../../test/support/openai-server.js';
import { StreamingWebhook } from '../../test/support/streaming-webhook.js';
import { corpusRate, type Phrase } from './corpus.js';

export const delays = { sttMs: 150, llmFirstTokenMs: 300, ttsFirstAudioMs: 100 };
/** What the agent says to every turn: two sentences, ~6 s of speech, long enough to be talked over. */
export const agentAnswer =
  'Sure, let me check that for you right away. We are open every day from nine in the morning until ten at night.';

const probeLength = 64;

/** Where `probe` (exact samples) starts in `audio`, or -1. */
export function findProbe(audio: Int16Array, probe: Int16Array): number {
  const first = probe[0]!;
  outer: for (let i = 0; i + probe.length <= audio.length; i++) {
    if (audio[i] !== first) continue;
    for (let j = 1; j < probe.length; j++) if (audio[i + j] !== probe[j]) continue outer;
    return i;
  }
  return -1;
}

/** Counts what the fake STT was asked, for the report. */
export interface SttLog {
  calls: number;
  /** Calls where audio held speech the corpus did not recognise (would mean the audio was altered). */
  unrecognised: number;
}

export function fakeSpeech(phrases: Phrase[], log: SttLog): SpeechProviders {
  const probes = phrases
    .filter((p) => p.samples.length > probeLength * 4)
    .map((p) => {
      const mid = Math.floor(p.samples.length / 2);
      return { text: p.text, probe: p.samples.slice(mid, mid + probeLength) };
    });
  const stt: SttProvider = {
    label: 'bench-stt',
    async transcribe({ audio, signal }) {
      await sleep(delays.sttMs, undefined, { signal });
      log.calls++;
      const found = probes
        .map((p) => ({ text: p.text, at: findProbe(audio, p.probe) }))
        .filter((f) => f.at >= 0)
        .sort((a, b) => a.at - b.at);
      if (found.length === 0 && loud(audio)) log.unrecognised++;
      if (process.env['TURN_BENCH_DEBUG'] === '1') {
        console.error(`stt: ${audio.length} samples → ${found.map((f) => `${f.text}@${f.at}`).join(' | ')}`);
      }
      return found.map((f) => f.text).join(' ');
    },
  };
  const tts: TtsProvider = {
    label: 'bench-tts',
    async *synthesize({ text, signal }) {
      try {
        await sleep(delays.ttsFirstAudioMs, undefined, { signal });
      } catch {
        return; // aborted before the first audio: nothing to say
      }
      const total = Math.round((text.length * 60 * corpusRate) / 1000);
      const chunk = corpusRate / 10;
      for (let at = 0; at < total && signal?.aborted !== true; at += chunk) {
        const samples = new Int16Array(Math.min(chunk, total - at));
        for (let i = 0; i < samples.length; i++)
          samples[i] = Math.round(600 * Math.sin(((at + i) * 2 * Math.PI * 220) / corpusRate));
        yield { samples, sampleRate: corpusRate };
      }
    },
  };
  return { stt: () => stt, tts: () => tts };
}

function loud(audio: Int16Array): boolean {
  let peak = 0;
  for (let i = 0; i < audio.length; i += 4) peak = Math.max(peak, Math.abs(audio[i]!));
  return peak > 3000;
}

/**
 * The LLM: OpenAI's chat completions (plain, or streamed a word every 10 ms) on test/support's
 * streaming server, in the chunks test/support/openai-server.ts writes; resolves with its base URL.
 */
export async function startFakeLlm(): Promise<{ baseUrl: string; close: () => Promise<void> }> {
  const server = await StreamingWebhook.start(async (call, out) => {
    const body = JSON.parse(call.rawBody || '{}') as { stream?: boolean; model?: string };
    const model = body.model ?? 'm';
    await sleep(delays.llmFirstTokenMs);
    if (!body.stream) {
      out.head('application/json');
      out.raw(JSON.stringify(completion(model, agentAnswer)));
      out.end();
      return;
    }
    out.head('text/event-stream');
    const events = textEvents(model, agentAnswer);
    for (const [i, event] of events.entries()) {
      if (out.gone) return;
      out.raw(`data: ${event}\n\n`);
      if (i < events.length - 1) await sleep(10); // the last is `finish_reason: stop`, right after the last word's 10 ms
    }
    out.raw('data: [DONE]\n\n');
    out.end();
  });
  return { baseUrl: `${server.url}/v1`, close: () => server.close() };
}
