/**
 * Barge-in benchmark: how soon a caller talking over the agent interrupts it, before and after the
 * hypothesis so far decides (machines/turn-words/barge-in.ts), in one run on the same audio. Each
 * clip of the corpus (barge-in/corpus.ts: people's recorded voices, synthetic acknowledgements and
 * noise bursts, 8 kHz) is spoken at real-time pace into one line (barge-in/line.ts: the real VAD,
 * pocketsphinx streaming) heard by one session machine per rule (barge-in/line.ts): the transcript
 * at the end of the speech, the machine's rule on the hypothesis so far and its variants, and what a
 * session does whose STT cannot stream (speech that goes on 1.5 s without a pause interrupts).
 *
 *   node --import tsx bench/barge-in.ts                 # ~9 min; writes bench/results/barge-in.{json,md}
 *   BARGE_BENCH_QUICK=1 node --import tsx bench/barge-in.ts   # ~2 min
 */
import { SileroVad } from '../src/pipeline/vad/silero-vad.js';
import { PocketsphinxStt } from '../src/providers/pocketsphinx/pocketsphinx-stt.js';
import { FrameClock } from '../test/support/frame-clock.js';
import { buildCorpus, corpusRate, type Clip } from './barge-in/corpus.js';
import {
  renderMarkdown,
  summarizeRule,
  type BargeInReport,
  type ClipResult,
  type RuleOutcome,
} from './barge-in/report.js';
import { BargeInLine, type Decisions, type Rule } from './barge-in/line.js';
import { isMain } from './lib/is-main.js';
import { machineInfo, publishResults } from './lib/report.js';

const frameMs = 20;
const frame = (corpusRate * frameMs) / 1000;
/** Silence before the clip (the agent has been talking a while) and after it (the decision, the resume). */
const leadMs = 600;
const tailMs = 2_500;
/** BARGE_BENCH_RULES=final,partial,late-500 … measures other rules (barge-in/line.ts). */
const rules = (process.env['BARGE_BENCH_RULES']?.split(',') ?? [
  'final',
  'partial',
  'partial-any',
  'partial-3',
  'partial-2',
  'late-500',
  'late-800',
  'duration',
]) as Rule[];

async function runClip(clip: Clip, vad: SileroVad, stt: PocketsphinxStt): Promise<ClipResult> {
  const line = new BargeInLine(vad, stt, rules);
  const lead = (leadMs * corpusRate) / 1000;
  const audio = new Int16Array(lead + clip.samples.length + (tailMs * corpusRate) / 1000);
  audio.set(clip.samples, lead);
  const clock = new FrameClock(frameMs);
  for (let at = 0; at < audio.length; at += frame) {
    line.feed(audio.subarray(at, at + frame));
    await clock.tick();
  }
  line.close();
  const speechMs = (clip.samples.length * 1000) / corpusRate;
  const outcome = (decided: Decisions): RuleOutcome => {
    const at = (type: string) => decided.find((d) => d.type === type)?.atMs ?? null;
    const interrupted = at('interrupted');
    const on = decided.find((d) => d.type === 'interrupted')?.on ?? null;
    return {
      paused: at('playback_paused') !== null,
      resumed: at('playback_resumed') !== null,
      interrupted_ms: interrupted === null ? null : interrupted - leadMs,
      before_speech_end: interrupted !== null && interrupted < leadMs + speechMs,
      on,
    };
  };
  return {
    clip: clip.name,
    kind: clip.kind,
    speech_ms: Math.round(speechMs),
    rules: Object.fromEntries(rules.map((rule) => [rule, outcome(line.decided.get(rule)!)])) as ClipResult['rules'],
  };
}

export async function main(quick: boolean): Promise<BargeInReport> {
  const startedAt = new Date().toISOString();
  const machine = machineInfo();
  const corpus = await buildCorpus(quick);
  // the lead and tail are digital zeros: the VAD's silence floor would skip the model there (as in turn-taking)
  const vad = await SileroVad.load({ silenceFloorDbfs: 'off' });
  const stt = new PocketsphinxStt({ decoders: 4, threads: 2 });
  try {
    await stt.warm({ capturedRate: corpusRate });
    const clips: ClipResult[] = [];
    for (const [i, clip] of corpus.entries()) {
      const result = await runClip(clip, vad, stt);
      clips.push(result);
      const show = (r: RuleOutcome) =>
        r.interrupted_ms !== null ? `interrupted ${r.interrupted_ms} ms` : r.resumed ? 'resumed' : '—';
      const shown = rules.map((rule) => `${rule} ${show(result.rules[rule]!)}`).join(', ');
      console.log(`barge-in ${i + 1}/${corpus.length} ${clip.name}: ${shown}`);
    }
    const report: BargeInReport = {
      bench: 'barge-in',
      started_at: startedAt,
      machine,
      load_avg_1m_at_end: machineInfo().load_avg_1m,
      quick,
      rules: rules.map((rule) => summarizeRule(rule, clips)),
      new_false_interruptions: Object.fromEntries(
        rules.map((rule) => [
          rule,
          clips
            .filter((c) => c.kind === 'acknowledgement')
            .filter((c) => c.rules[rule]!.interrupted_ms !== null && c.rules.final.interrupted_ms === null)
            .map((c) => c.clip),
        ]),
      ) as Record<Rule, string[]>,
      clips,
    };
    const markdown = renderMarkdown(report);
    await publishResults('barge-in', report, markdown);
    return report;
  } finally {
    await stt.close();
    await vad.close();
  }
}

if (isMain(import.meta.url)) await main(process.env['BARGE_BENCH_QUICK'] === '1');
