import { summarize, type LatencySummary } from '../lib/percentiles.js';
import { markdownTable, round, type MachineInfo } from '../lib/report.js';
import type { ScenarioResult } from './session-run.js';

/** One endpointing setting's run over the corpus. */
export interface SettingReport {
  setting: string;
  /** The agent settings PATCHed for this row. */
  patch: Record<string, unknown>;
  /** Why the row could not run (the server refused its settings), or null. */
  unavailable: string | null;
  /** A note on how it ran (e.g. the server did not know the setting, so today's defaults ran). */
  note: string | null;
  results: ScenarioResult[];
  /** Smart Turn checks made by sessions of this row, and their worker-thread CPU. */
  smart_turn_checks: number;
  smart_turn_cpu_ms_per_check: number | null;
}

export interface SmartTurnCost {
  model: string;
  checks: number;
  /** Round trip of one check from the event loop (queue + features + inference), ms. */
  wall: LatencySummary;
  features_ms_mean: number;
  inference_ms_mean: number;
  /** Worker-thread CPU per check (10 ms ticks summed over all checks). */
  cpu_ms_per_check: number;
}

export interface TurnTakingReport {
  bench: 'turn-taking';
  started_at: string;
  machine: MachineInfo;
  load_avg_1m_at_end: number;
  quick: boolean;
  /** The program and voice that spoke the corpus. */
  corpus_voice: string;
  delays: Record<string, number>;
  settings: SettingReport[];
  smart_turn: SmartTurnCost | null;
}

const utteranceKinds = new Set(['question', 'statement', 'pause', 'multi', 'number', 'email']);

export interface SettingSummary {
  questions: LatencySummary;
  utterances: LatencySummary;
  utteranceCount: number;
  splits: number;
  missed: number;
  wordsLost: number;
  talkedOver: number;
  falseInterruptions: number;
  bargeIns: number;
  bargeInsMissed: number;
  reaction: LatencySummary;
}

export function summarizeSetting(results: ScenarioResult[]): SettingSummary {
  const utterances = results.filter((r) => utteranceKinds.has(r.kind));
  const latency = (list: ScenarioResult[]) =>
    summarize(list.map((r) => r.speech_end_to_first_audio_ms).filter((v): v is number => v !== null));
  const talkedOver = results.filter((r) => r.kind === 'backchannel' || r.kind === 'noise');
  const bargeIns = results.filter((r) => r.kind === 'barge-in');
  return {
    questions: latency(utterances.filter((r) => r.kind === 'question')),
    utterances: latency(utterances),
    utteranceCount: utterances.length,
    splits: utterances.filter((r) => r.answered_turns > 1).length,
    missed: utterances.filter((r) => r.answered_turns === 0).length,
    wordsLost: utterances.filter((r) => r.lost_phrases > 0).length,
    talkedOver: talkedOver.length,
    falseInterruptions: talkedOver.filter((r) => r.interrupted === true).length,
    bargeIns: bargeIns.length,
    bargeInsMissed: bargeIns.filter((r) => r.reaction_ms === null || r.interrupted !== true).length,
    reaction: summarize(bargeIns.map((r) => r.reaction_ms).filter((v): v is number => v !== null)),
  };
}

const ms = (v: number) => (Number.isNaN(v) ? '—' : String(round(v, 0)));
const pair = (s: LatencySummary) => `${ms(s.p50_ms)} / ${ms(s.p90_ms)}`;

export function renderMarkdown(report: TurnTakingReport): string {
  const ran = report.settings.filter((s) => s.unavailable === null);
  const sums = new Map(ran.map((s) => [s.setting, summarizeSetting(s.results)]));
  const col = (f: (s: SettingSummary, r: SettingReport) => string) =>
    report.settings.map((r) => (sums.has(r.setting) ? f(sums.get(r.setting)!, r) : 'unavailable'));
  const rows: string[][] = [
    ['speech end → first audio, complete questions, p50 / p90 ms', ...col((s) => pair(s.questions))],
    ['speech end → first audio, every utterance, p50 / p90 ms', ...col((s) => pair(s.utterances))],
    ['splits (one utterance answered as two)', ...col((s) => `${s.splits} / ${s.utteranceCount}`)],
    ['missed utterances (never answered)', ...col((s) => `${s.missed} / ${s.utteranceCount}`)],
    ['utterances with words lost (a part never transcribed)', ...col((s) => `${s.wordsLost} / ${s.utteranceCount}`)],
    ['false interruptions (backchannels, noise bursts)', ...col((s) => `${s.falseInterruptions} / ${s.talkedOver}`)],
    ['barge-in reaction, onset → paused or interrupted, p50 / p90 ms', ...col((s) => pair(s.reaction))],
    [
      'barge-ins that did not interrupt',
      ...col((s) => `${s.bargeIns === 0 ? '—' : `${s.bargeInsMissed} / ${s.bargeIns}`}`),
    ],
    [
      'Smart Turn checks in sessions (CPU ms per check)',
      ...col(
        (_, r) =>
          `${r.smart_turn_checks} (${r.smart_turn_cpu_ms_per_check === null ? '—' : ms(r.smart_turn_cpu_ms_per_check)})`,
      ),
    ],
  ];
  const header = ['measure', ...report.settings.map((s) => `\`${s.setting}\``)];
  const lines = [
    `## Turn-taking (${report.quick ? 'quick' : 'full'} run)`,
    '',
    `${report.machine.cpu_count}× ${report.machine.cpu_model}, Node ${report.machine.node}, load average ${report.machine.load_avg_1m} at the start, ${report.load_avg_1m_at_end} at the end. Corpus spoken by ${report.corpus_voice}. Scripted rows: fake STT ${report.delays['sttMs']} ms (exact, punctuated words); \`(pocketsphinx)\` rows: the real recogniser, streaming, every decoder (\`PARLEY_POCKETSPHINX_DECODERS\`) on 2 threads loaded before the rows, 3 sessions at a time (unpunctuated words, whatever it heard). Fake LLM first token ${report.delays['llmFirstTokenMs']} ms, TTS first audio ${report.delays['ttsFirstAudioMs']} ms. The VAD's silence floor is off (\`PARLEY_VAD_SILENCE_FLOOR_DBFS=off\`): the corpus' pauses are digital zeros, where the floor would skip Silero and keep its state from the last speech, making onsets look faster than on a real line. Reaction is timed from the client sending the frame that holds the talked-over phrase's first sample.`,
    '',
    markdownTable(
      header,
      rows,
      header.map((_, i) => (i === 0 ? 'left' : 'right')),
    ),
  ];
  for (const s of report.settings) {
    if (s.unavailable !== null) lines.push('', `\`${s.setting}\` unavailable: ${s.unavailable}`);
    if (s.note !== null) lines.push('', `\`${s.setting}\`: ${s.note}`);
  }
  for (const suffix of ['', ' (pocketsphinx)']) {
    const silence = sums.get(`silence${suffix}`);
    const smart = sums.get(`smart${suffix}`);
    if (silence === undefined || smart === undefined) continue;
    const ratio = smart.questions.p50_ms / silence.questions.p50_ms;
    const verdict = (ok: boolean) => (ok ? 'met' : 'missed');
    lines.push(
      '',
      `Targets for \`smart${suffix}\`: complete questions p50 ${round(ratio * 100, 0)} % of \`silence${suffix}\` (≤ 60 %: ${verdict(ratio <= 0.6)}); ` +
        `${smart.splits} splits (0: ${verdict(smart.splits === 0)}); ${smart.falseInterruptions} false interruptions ` +
        `(0: ${verdict(smart.falseInterruptions === 0)}); barge-in reaction p90 ${ms(smart.reaction.p90_ms)} ms ` +
        `(≤ 150 ms: ${verdict(smart.reaction.p90_ms <= 150)}).`,
    );
  }
  if (report.smart_turn !== null) {
    const c = report.smart_turn;
    lines.push(
      '',
      `**Smart Turn cost** (${c.model}, ${c.checks} checks on the corpus' utterances, one worker thread): ` +
        `round trip p50 ${ms(c.wall.p50_ms)} ms, p90 ${ms(c.wall.p90_ms)} ms; features ${round(c.features_ms_mean, 1)} ms + ` +
        `inference ${round(c.inference_ms_mean, 1)} ms wall on average; **${round(c.cpu_ms_per_check, 1)} ms CPU per check** (worker thread).`,
    );
  }
  lines.push('', '### Per scenario', '');
  const detail = report.settings.flatMap((s) =>
    s.results.map((r) => [
      s.setting,
      r.scenario,
      r.speech_end_to_first_audio_ms === null ? '—' : ms(r.speech_end_to_first_audio_ms),
      String(r.answered_turns),
      r.interrupted === null
        ? ''
        : r.interrupted
          ? 'interrupted'
          : r.paused
            ? r.resumed
              ? 'paused, resumed'
              : 'paused'
            : 'no',
      r.reaction_ms === null ? '' : ms(r.reaction_ms),
      r.transcripts.join(' | '),
    ]),
  );
  lines.push(
    markdownTable(
      ['setting', 'scenario', 'end → audio ms', 'turns', 'talked over', 'reaction ms', 'transcripts'],
      detail,
      ['left', 'left', 'right', 'right', 'left', 'right', 'left'],
    ),
  );
  return lines.join('\n');
}
