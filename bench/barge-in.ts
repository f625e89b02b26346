/**
 * Barge-in benchmark: how soon a caller talking over the agent interrupts it, before and after the
 * hypothesis so far decides (machines/turn-words/barge-in.ts), in one run on the same audio. Each
 * clip of the corpus (barge-in/corpus.ts: people's recorded voices, synthetic acknowledgements and
 * noise bursts, 8 kHz) is spoken at real-time pace into two rigs at once (barge-in/rig.ts: the real
 * VAD, pocketsphinx streaming, the session machine), one with the rule before (the transcript at
 * the end of the speech decides), one with the new one.
 *
 *   node --import tsx bench/barge-in.ts                 # ~6 min; writes bench/results/barge-in.{json,md}
 *   BARGE_BENCH_QUICK=1 node --import tsx bench/barge-in.ts   # ~1.5 min
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { SileroVad } from '../src/pipeline/vad/silero-vad.js';
import { PocketsphinxStt } from '../src/providers/pocketsphinx/pocketsphinx-stt.js';
import { buildCorpus, corpusRate, type Clip } from './barge-in/corpus.js';
import {
  renderMarkdown,
  summarizeRule,
  type BargeInReport,
  type ClipResult,
  type RuleOutcome,
} from './barge-in/report.js';
import { BargeInRig, type Rule } from './barge-in/rig.js';
import { isMain } from './lib/is-main.js';
import { machineInfo, writeResults } from './lib/report.js';

const frameMs = 20;
const frame = (corpusRate * frameMs) / 1000;
/** Silence before the clip (the agent has been talking a while) and after it (the decision, the resume). */
const leadMs = 600;
const tailMs = 2_500;
const rules: Rule[] = ['final', 'partial'];

async function runClip(clip: Clip, vad: SileroVad, stt: PocketsphinxStt): Promise<ClipResult> {
  const rigs = rules.map((rule) => new BargeInRig(vad, stt, rule));
  const lead = (leadMs * corpusRate) / 1000;
  const line = new Int16Array(lead + clip.samples.length + (tailMs * corpusRate) / 1000);
  line.set(clip.samples, lead);
  const start = performance.now();
  for (let at = 0, k = 1; at < line.length; at += frame, k++) {
    const samples = line.subarray(at, at + frame);
    for (const rig of rigs) rig.feed(samples);
    const wait = start + k * frameMs - performance.now();
    if (wait > 0) await sleep(wait);
  }
  for (const rig of rigs) rig.close();
  const speechMs = (clip.samples.length * 1000) / corpusRate;
  const outcome = (rig: BargeInRig): RuleOutcome => {
    const at = (type: string) => rig.decided.find((d) => d.type === type)?.atMs ?? null;
    const interrupted = at('interrupted');
    const on = rig.decided.find((d) => d.type === 'interrupted')?.on ?? null;
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
    rules: { final: outcome(rigs[0]!), partial: outcome(rigs[1]!) },
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
      console.log(
        `barge-in ${i + 1}/${corpus.length} ${clip.name}: before ${show(result.rules.final)}, after ${show(result.rules.partial)}`,
      );
    }
    const report: BargeInReport = {
      bench: 'barge-in',
      started_at: startedAt,
      machine,
      load_avg_1m_at_end: machineInfo().load_avg_1m,
      quick,
      rules: rules.map((rule) => summarizeRule(rule, clips)),
      new_false_interruptions: clips
        .filter((c) => c.kind === 'acknowledgement')
        .filter((c) => c.rules.partial.interrupted_ms !== null && c.rules.final.interrupted_ms === null)
        .map((c) => c.clip),
      clips,
    };
    const markdown = renderMarkdown(report);
    const paths = await writeResults('barge-in', report, markdown);
    console.log(markdown);
    console.log(`\nwrote ${paths.json} and ${paths.markdown}`);
    return report;
  } finally {
    await stt.close();
    await vad.close();
  }
}

if (isMain(import.meta.url)) await main(process.env['BARGE_BENCH_QUICK'] === '1');
