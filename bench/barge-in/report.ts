import { summarize } from '../lib/percentiles.js';
import { markdownTable, round, type MachineInfo } from '../lib/report.js';
import type { Clip } from './corpus.js';
import type { Rule } from './line.js';

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
  /** Per rule: the acknowledgements it interrupted while the rule before let them be. */
  new_false_interruptions: Record<Rule, string[]>;
  clips: ClipResult[];
}

export function summarizeRule(rule: Rule, clips: ClipResult[]): RuleSummary {
  const people = clips.filter((c) => c.kind === 'interruption');
  const acks = clips.filter((c) => c.kind === 'acknowledgement');
  const times = people.map((c) => c.rules[rule]!.interrupted_ms).filter((t) => t !== null);
  const s = summarize(times);
  return {
    rule,
    interrupted_ms: { p50: s.p50_ms, p90: s.p90_ms, max: s.max_ms, count: s.count },
    interruptions: people.length,
    before_speech_end: people.filter((c) => c.rules[rule]!.before_speech_end).length,
    acknowledgements_kept: acks.filter((c) => c.rules[rule]!.interrupted_ms === null).length,
    acknowledgements: acks.length,
  };
}

const ms = (v: number | null) => (v === null || Number.isNaN(v) ? '—' : String(Math.round(v)));
const pct = (n: number, of: number) => `${n} / ${of} (${of === 0 ? 0 : round((100 * n) / of, 0)} %)`;

const labels: Record<string, string> = {
  final: 'before: the transcript at the end',
  partial: 'after: the hypothesis so far, 3 words or 2 from 600 ms, not after a lone letter',
  'partial-any': 'the same, 2 from 600 ms even after a lone letter',
  'partial-3': 'the same, 3 words only',
  'partial-2': 'the same, 2 words at once',
  duration: 'no hypothesis: 1.5 s of speech',
};

const labelOf = (rule: Rule) => labels[rule] ?? `3 words or 2 from ${rule.slice('late-'.length)} ms`;

export function renderMarkdown(r: BargeInReport): string {
  const row = (measure: string, value: (s: RuleSummary) => string) => [measure, ...r.rules.map(value)];
  const summary = markdownTable(
    ['measure', ...r.rules.map((s) => labelOf(s.rule))],
    [
      row(
        'onset → `interrupted`, recorded voices, p50 / p90 ms',
        (s) => `${ms(s.interrupted_ms.p50)} / ${ms(s.interrupted_ms.p90)}`,
      ),
      row('interrupted before the caller stopped talking', (s) => pct(s.before_speech_end, s.interruptions)),
      row('recorded voices that never interrupted', (s) => String(s.interruptions - s.interrupted_ms.count)),
      row('acknowledgements and noise bursts that did not interrupt', (s) =>
        pct(s.acknowledgements_kept, s.acknowledgements),
      ),
      row('… interrupted where the rule before let them be', (s) => String(r.new_false_interruptions[s.rule]!.length)),
    ],
    ['left', ...r.rules.map((): 'right' => 'right')],
  );
  const cell = (o: RuleOutcome) =>
    o.interrupted_ms !== null
      ? `interrupted ${ms(o.interrupted_ms)}${o.on === null ? '' : ` on "${o.on}"`}`
      : o.resumed
        ? 'resumed'
        : o.paused
          ? 'paused'
          : 'not paused';
  const rows = r.clips.map((c) => [c.clip, c.speech_ms, ...r.rules.map((s) => cell(c.rules[s.rule]!))]);
  const extra = r.rules
    .filter((s) => s.rule !== 'final')
    .map((s) => `- ${labelOf(s.rule)}: ${r.new_false_interruptions[s.rule]!.join(', ') || 'none'}`);
  return [
    `# Barge-in: onset → interrupted (${r.started_at})`,
    '',
    `${r.machine.cpu_count} × ${r.machine.cpu_model}, ${r.machine.node}; load average ${r.machine.load_avg_1m} at the start, ${r.load_avg_1m_at_end} at the end${r.quick ? '; quick run' : ''}. Stream times from the first sample of the speech; "…" marks a hypothesis so far.`,
    '',
    summary,
    '',
    'Acknowledgements interrupted where the rule before let them be:',
    '',
    ...extra,
    '',
    markdownTable(['clip', 'speech ms', ...r.rules.map((s) => labelOf(s.rule))], rows, [
      'left',
      'right',
      ...r.rules.map((): 'left' => 'left'),
    ]),
  ].join('\n');
}
