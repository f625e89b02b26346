import { summarize } from '../lib/percentiles.js';
import { markdownTable, round, type MachineInfo } from '../lib/report.js';
import type { Clip } from './corpus.js';
import type { Rule } from './rig.js';

/** What one rule decided on one clip; times in ms from the speech onset (the clip's first sample). */
export interface RuleOutcome {
  paused: boolean;
  resumed: boolean;
  /** Onset → `interrupted`; null when it never came. */
  interrupted_ms: number | null;
  /** `interrupted` came before the caller's speech ended. */
  before_speech_end: boolean;
  /** The words `interrupted` was decided on: a hypothesis so far (ending in `…`) or the final transcript. */
  on: string | null;
}

export interface ClipResult {
  clip: string;
  kind: Clip['kind'];
  speech_ms: number;
  rules: Record<Rule, RuleOutcome>;
}

export interface RuleSummary {
  rule: Rule;
  /** Onset → `interrupted` over the recorded voices that interrupted. */
  interrupted_ms: { p50: number; p90: number; max: number; count: number };
  interruptions: number;
  before_speech_end: number;
  /** Acknowledgements and noise that did not interrupt (playback resumed, or never paused). */
  acknowledgements_kept: number;
  acknowledgements: number;
}

export interface BargeInReport {
  bench: 'barge-in';
  started_at: string;
  machine: MachineInfo;
  load_avg_1m_at_end: number;
  quick: boolean;
  rules: RuleSummary[];
  /** Acknowledgements the new rule interrupted and the old one let resume. */
  new_false_interruptions: string[];
  clips: ClipResult[];
}

export function summarizeRule(rule: Rule, clips: ClipResult[]): RuleSummary {
  const people = clips.filter((c) => c.kind === 'interruption');
  const acks = clips.filter((c) => c.kind === 'acknowledgement');
  const times = people.map((c) => c.rules[rule].interrupted_ms).filter((t) => t !== null);
  const s = summarize(times);
  return {
    rule,
    interrupted_ms: { p50: s.p50_ms, p90: s.p90_ms, max: s.max_ms, count: s.count },
    interruptions: people.length,
    before_speech_end: people.filter((c) => c.rules[rule].before_speech_end).length,
    acknowledgements_kept: acks.filter((c) => c.rules[rule].interrupted_ms === null).length,
    acknowledgements: acks.length,
  };
}

const ms = (v: number | null) => (v === null || Number.isNaN(v) ? '—' : String(Math.round(v)));
const pct = (n: number, of: number) => `${n} / ${of} (${of === 0 ? 0 : round((100 * n) / of, 0)} %)`;

export function renderMarkdown(r: BargeInReport): string {
  const [before, after] = [r.rules.find((x) => x.rule === 'final')!, r.rules.find((x) => x.rule === 'partial')!];
  const summary = markdownTable(
    ['measure', 'before: the transcript at the end decides', 'after: the hypothesis so far decides'],
    [
      [
        'onset → `interrupted`, recorded voices, p50 / p90 ms',
        `${ms(before.interrupted_ms.p50)} / ${ms(before.interrupted_ms.p90)}`,
        `${ms(after.interrupted_ms.p50)} / ${ms(after.interrupted_ms.p90)}`,
      ],
      [
        'interrupted before the caller stopped talking',
        pct(before.before_speech_end, before.interruptions),
        pct(after.before_speech_end, after.interruptions),
      ],
      [
        'recorded voices that never interrupted',
        `${before.interruptions - before.interrupted_ms.count}`,
        `${after.interruptions - after.interrupted_ms.count}`,
      ],
      [
        'acknowledgements and noise bursts that did not interrupt',
        pct(before.acknowledgements_kept, before.acknowledgements),
        pct(after.acknowledgements_kept, after.acknowledgements),
      ],
    ],
    ['left', 'right', 'right'],
  );
  const rows = r.clips.map((c) => {
    const cell = (o: RuleOutcome) =>
      o.interrupted_ms !== null
        ? `interrupted ${ms(o.interrupted_ms)} on "${o.on ?? ''}"`
        : o.resumed
          ? 'resumed'
          : o.paused
            ? 'paused'
            : 'not paused';
    return [c.clip, c.kind, c.speech_ms, cell(c.rules.final), cell(c.rules.partial)];
  });
  return [
    `# Barge-in: onset → interrupted (${r.started_at})`,
    '',
    `${r.machine.cpu_count} × ${r.machine.cpu_model}, ${r.machine.node}; load average ${r.machine.load_avg_1m} at the start, ${r.load_avg_1m_at_end} at the end${r.quick ? '; quick run' : ''}.`,
    '',
    summary,
    '',
    `Acknowledgements interrupted by the new rule only: ${r.new_false_interruptions.length === 0 ? 'none' : r.new_false_interruptions.join(', ')}.`,
    '',
    markdownTable(['clip', 'kind', 'speech ms', 'before', 'after'], rows, ['left', 'left', 'right', 'left', 'left']),
  ].join('\n');
}
