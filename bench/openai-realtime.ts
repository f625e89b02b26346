/**
 * `openai-realtime`: what opening one Realtime session per utterance costs the user's wait.
 *
 * The provider streams utterances to the fake Realtime API (test/support/fake-openai-realtime.ts)
 * at real-time pace, in the VAD's 32 ms windows, and times end of speech (`finish()`) → transcript.
 * The fake transcribes in a fixed 200 ms and holds each handshake back by H ms, standing in for
 * the TLS and round trips to a remote server (0: localhost, the same as a session kept open).
 * Since the session opens at the onset of speech, its handshake overlaps the utterance: it adds to
 * the wait only when it takes longer than the utterance. Added = p50 at H − p50 at H = 0.
 *
 *   node --import tsx bench/openai-realtime.ts      # bench/results/openai-realtime.{json,md}
 */
import { probeRealtime } from '../src/providers/openai-realtime/realtime-probe.js';
import { OpenAiRealtimeStt } from '../src/providers/openai-realtime/realtime-stt.js';
import { FakeOpenAiRealtime } from '../test/support/fake-openai-realtime.js';
import { isMain } from './lib/is-main.js';
import { summarize, type LatencySummary } from './lib/percentiles.js';
import { machineInfo, markdownTable, round, publishResults } from './lib/report.js';

const utteranceMs = [300, 1200];
const handshakeMs = [0, 150, 400];
const transcribeMs = 200;
const perCell = Number(process.env['REALTIME_BENCH_UTTERANCES'] ?? 8);

interface Cell {
  utterance_ms: number;
  handshake_ms: number;
  end_of_speech_to_transcript: LatencySummary;
  added_p50_ms: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One utterance at real-time pace; ms from its end to the transcript. */
async function utterance(stt: OpenAiRealtimeStt, ms: number): Promise<number> {
  const stream = stt.openStream({ sampleRate: 16_000, model: 'gpt-4o-mini-transcribe', language: 'en' });
  const window = new Int16Array(512).map((_, i) => Math.round(4000 * Math.sin(i / 5)));
  const start = performance.now();
  for (let k = 0; k * 32 < ms; k++) {
    stream.write(window);
    await sleep(start + (k + 1) * 32 - performance.now());
  }
  const end = performance.now();
  await stream.finish();
  return performance.now() - end;
}

export async function runRealtimeBench() {
  const started_at = new Date().toISOString();
  const machine = machineInfo();
  const cells: Cell[] = [];
  let localProbeMs: number | null = null;
  for (const h of handshakeMs) {
    const fake = await FakeOpenAiRealtime.start({ handshakeDelayMs: h, transcribeMs: [transcribeMs, transcribeMs] });
    const stt = new OpenAiRealtimeStt({ url: fake.url, apiKey: 'sk-test' });
    if (h === 0) localProbeMs = (await probeRealtime({ url: fake.url, apiKey: 'sk-test' }, 2_000)).latency_ms;
    for (const u of utteranceMs) {
      const waits = await Promise.all(Array.from({ length: perCell }, () => utterance(stt, u)));
      const summary = summarize(waits);
      const base = cells.find((c) => c.utterance_ms === u && c.handshake_ms === 0);
      const p50 = summary.p50_ms;
      cells.push({
        utterance_ms: u,
        handshake_ms: h,
        end_of_speech_to_transcript: summary,
        added_p50_ms: round(base === undefined ? 0 : p50 - base.end_of_speech_to_transcript.p50_ms, 1),
      });
      console.log(`utterance ${u} ms, handshake ${h} ms: p50 ${round(p50, 1)} ms`);
    }
    await fake.close();
  }
  const report = {
    bench: 'openai-realtime',
    started_at,
    machine,
    transcribe_ms: transcribeMs,
    local_probe_ms: localProbeMs,
    cells,
  };
  const md = [
    `# openai-realtime: one session per utterance (${started_at})`,
    '',
    `Fake transcription ${transcribeMs} ms; ${perCell} utterances per row, at once; a session on localhost opens in ${localProbeMs ?? '?'} ms (probe).`,
    '',
    markdownTable(
      ['utterance ms', 'handshake ms', 'end of speech → transcript p50 ms', 'p90 ms', 'added p50 ms'],
      cells.map((c) => [
        c.utterance_ms,
        c.handshake_ms,
        round(c.end_of_speech_to_transcript.p50_ms, 1),
        round(c.end_of_speech_to_transcript.p90_ms, 1),
        c.added_p50_ms,
      ]),
    ),
  ].join('\n');
  await publishResults('openai-realtime', report, md);
  return report;
}

if (isMain(import.meta.url)) await runRealtimeBench();
