import { summarize, type LatencySummary } from '../lib/percentiles.js';
import { markdownTable, round, type MachineInfo } from '../lib/report.js';
import type { ScenarioResult } from './session-run.js';

/** One row of the people's-voices bench: an agent setting over every scenario. */
export interface PeopleRow {
  row: string;
  patch: Record<string, unknown>;
  results: ScenarioResult[];
}

export interface PeopleReport {
  bench: 'turn-taking-people';
  started_at: string;
  machine: MachineInfo;
  load_avg_1m_at_end: number;
  quick: boolean;
  process_cores: number;
  /** Callers speaking at once. */
  sessions: number;
  rows: PeopleRow[];
}

interface RowSummary {
  complete: LatencySummary;
  answeredOnce: number;
  completeCount: number;
  splits: number;
  cuts: number;
  multiOnce: number;
  multiHeardOnce: number;
  multis: number;
  missed: number;
}

function summarizeRow(results: ScenarioResult[]): RowSummary {
  const complete = results.filter((r) => r.kind === 'statement' || r.kind === 'question');
  const cuts = results.filter((r) => r.kind === 'pause');
  const multis = results.filter((r) => r.kind === 'multi');
  return {
    complete: summarize(complete.map((r) => r.speech_end_to_first_audio_ms).filter((v): v is number => v !== null)),
    completeCount: complete.length,
    answeredOnce: complete.filter((r) => r.answered_turns === 1).length,
    splits: cuts.filter((r) => r.answered_turns > 1).length,
    cuts: cuts.length,
    multiOnce: multis.filter((r) => r.answered_turns === 1).length,
    multiHeardOnce: multis.filter((r) => r.answers_started === 1).length,
    multis: multis.length,
    missed: results.filter((r) => r.answered_turns === 0).length,
  };
}

const ms = (v: number) => (Number.isNaN(v) ? '—' : String(round(v, 0)));

/** The section of bench/README.md "Turn-taking on people's voices". */
export function renderPeople(report: PeopleReport): string {
  const sums = report.rows.map((r) => summarizeRow(r.results));
  const col = (f: (s: RowSummary) => string) => sums.map(f);
  const table = markdownTable(
    ['measure', ...report.rows.map((r) => `\`${r.row}\``)],
    [
      [
        'speech end → first audio, complete sentences, p50 / p90 ms',
        ...col((s) => `${ms(s.complete.p50_ms)} / ${ms(s.complete.p90_ms)}`),
      ],
      ['complete sentences answered once', ...col((s) => `${s.answeredOnce} / ${s.completeCount}`)],
      ['splits at a pause of 300–900 ms inside a clause', ...col((s) => `${s.splits} / ${s.cuts}`)],
      ['multi-sentence prompts answered once (one webhook call)', ...col((s) => `${s.multiOnce} / ${s.multis}`)],
      [
        'multi-sentence prompts with one answer heard (one `audio_start`)',
        ...col((s) => `${s.multiHeardOnce} / ${s.multis}`),
      ],
      ['never answered', ...col((s) => String(s.missed))],
    ],
    ['left', ...report.rows.map(() => 'right' as const)],
  );
  const detail = report.rows.flatMap((r) =>
    r.results.map((x) => [
      r.row,
      x.scenario,
      x.kind,
      x.speech_end_to_first_audio_ms === null ? '—' : ms(x.speech_end_to_first_audio_ms),
      String(x.answered_turns),
      x.transcripts.join(' | '),
    ]),
  );
  return [
    `## Turn-taking on people's voices (${report.quick ? 'quick' : 'full'} run)`,
    '',
    `${report.machine.cpu_count}× ${report.machine.cpu_model}, Node ${report.machine.node}, load average ${report.machine.load_avg_1m} at the start, ${report.load_avg_1m_at_end} at the end; Parley and the load generator in one process used ${round(report.process_cores, 2)} cores. A person's recorded prompts (asterisk-core-sounds-en-wav, 8 kHz upsampled to 16 kHz) at real-time pace, ${report.sessions} sessions at a time; passthrough webhook answering at once; flite speaks. Times are the client's: the frame holding the last speech sent → \`audio_start\` received.`,
    '',
    table,
    '',
    '### Per scenario',
    '',
    markdownTable(['row', 'prompt', 'kind', 'end → audio ms', 'turns', 'transcripts'], detail, [
      'left',
      'left',
      'left',
      'right',
      'right',
      'left',
    ]),
  ].join('\n');
}
