import { markdownTable, type Align } from '../lib/report.js';
import type { Percentiles } from './report.js';

export type SttEngine = 'instant' | 'pocketsphinx';

export interface TalkRow {
  stt: SttEngine;
  sessions: number;
  /** Sessions × speech share of the clip: how many are speaking at any moment, on average. */
  speaking_at_once: number;
  questions: number;
  /** Questions with no answer (`audio_start`) before the next question ended. */
  unanswered: number;
  /** Client: the frame holding the question's last speech sample sent → `audio_start` received. */
  user_wait_ms: Percentiles;
  /** The agent messages' own timings (server), per answered audio turn. */
  end_to_end_ms: Percentiles;
  endpointing_ms: Percentiles;
  /** end_to_end − endpointing − stt − webhook. */
  parley_share_ms: Percentiles;
  /** What the sessions asked of the recogniser (pocketsphinx rows). */
  recogniser: {
    streams: number;
    /** Onsets that found every decoder busy. */
    refused: number;
    /** Whole-utterance transcriptions (segments not streamed: no decoder, or fell behind). */
    whole: number;
    /** Segment end → final transcript of a streamed segment. */
    finish_ms: Percentiles;
    /** Call → transcript of a whole-utterance transcription (waiting for a decoder included). */
    whole_ms: Percentiles;
    /** Both together: every segment's transcript after the segment end. */
    ready_ms: Percentiles;
  } | null;
  /** Word error rate of the `transcript` events against the questions said; null for the stand-in. */
  wer: number | null;
  frame_lag_ms: Percentiles;
  cores: { parley: number; parley_main: number; clients: number };
  /** Parley's CPU per second of session audio, all threads (decoders included). */
  parley_cpu_ms_per_session_s: number;
  client_send_late_p99_ms: number;
  errors: string[];
  /** pocketsphinx rows: every question answered, frame lag within its limit, transcripts ready p99 within the budget. */
  keeps_up: boolean | null;
}

export interface RealSttReport {
  clip: { questions: readonly string[]; duration_s: number; speech_share: number; stagger_s: number };
  decoders: number;
  threads: number;
  /** Transcript ready after the segment end, p99, at most: later, the recogniser adds to the user's wait. */
  ready_budget_ms: number;
  /** Parley's CPU with no session, taken out of the per-session CPU. */
  idle_cpu_ms_per_s: number;
  lag_limit_ms: number;
  rows: TalkRow[];
  /** Most sessions whose pocketsphinx row kept up; null if none did. */
  capacity_sessions: number | null;
  stopped_because: string;
}

export function renderRealStt(r: RealSttReport): string {
  const f = (v: number | undefined, d = 1) => (v !== undefined && Number.isFinite(v) ? v.toFixed(d) : '–');
  const pp = (p: Percentiles | undefined) => `${f(p?.p50_ms)} / ${f(p?.p99_ms)}`;
  const header = [
    'STT',
    'sessions',
    'speaking at once',
    "user's wait p50 / p99 ms",
    'endpointing p50 / p99 ms',
    "Parley's share p50 / p99 ms",
    'streamed: transcript after segment end p50 / p99 ms',
    'whole-utterance fallbacks (p50 / p99 ms)',
    'every segment: transcript ready p99 ms',
    'WER',
    'frame lag p99 ms',
    'Parley cores (loop)',
    'CPU ms per session-s',
    'client cores',
    'keeps up',
  ];
  const table = markdownTable(
    header,
    r.rows.map((row) => [
      row.stt,
      row.sessions,
      f(row.speaking_at_once),
      pp(row.user_wait_ms) + (row.unanswered > 0 ? ` (${row.unanswered} of ${row.questions} unanswered)` : ''),
      pp(row.endpointing_ms),
      pp(row.parley_share_ms),
      row.recogniser === null ? '— (instant)' : pp(row.recogniser.finish_ms),
      row.recogniser === null
        ? '—'
        : `${row.recogniser.whole} of ${row.recogniser.streams + row.recogniser.refused}, ${row.recogniser.refused} refused at onset` +
          (row.recogniser.whole > 0 ? ` (${pp(row.recogniser.whole_ms)})` : ''),
      row.recogniser === null ? '—' : f(row.recogniser.ready_ms.p99_ms),
      row.wer === null ? '—' : `${(row.wer * 100).toFixed(1)} %`,
      f(row.frame_lag_ms.p99_ms, 2),
      `${f(row.cores.parley, 2)} (${f(row.cores.parley_main, 2)})`,
      f(row.parley_cpu_ms_per_session_s),
      f(row.cores.clients, 2),
      row.keeps_up === null ? '' : row.keeps_up ? 'yes' : 'NO',
    ]),
    header.map((_, i): Align => (i === 0 || i === header.length - 1 ? 'left' : 'right')),
  );
  return [
    `## (c) The real recogniser: pocketsphinx keeps up with ${r.capacity_sessions ?? 'no'} sessions (${r.decoders} decoders, ${r.threads} thread${r.threads === 1 ? '' : 's'}), beside the instant stand-in`,
    '',
    table,
    '',
    `Each session speaks the same conversation once (${r.clip.questions.length} whole questions in four flite voices, each followed by a pause while the agent would speak: ${f(r.clip.duration_s)} s, speech ${Math.round(r.clip.speech_share * 100)} % of it), 20 ms frames at real-time pace, starts spread over ${f(r.clip.stagger_s)} s; ` +
      'agents with default settings (smart endpointing; a recognised whole question waits 300 ms, a statement 1 000 ms), passthrough to a webhook answering at once, instant TTS. The same harness runs each count with the instant stand-in (which hears "What time do you open tomorrow?" in every utterance) and then with pocketsphinx. ' +
      "**User's wait** = the client's frame holding the question's last speech sample sent → `audio_start` received. Endpointing and Parley's share (end_to_end − endpointing − STT − webhook) are the agent messages' own timings. " +
      "**Transcript after segment end** = the stream's `finish()` (called when the VAD ends the segment, ~64 ms into the silence) → its final transcript, measured around the provider in Parley; a fallback is a segment transcribed whole (no decoder free at the onset, or its stream fell 3 s behind), timed from the call, waiting for a decoder included. " +
      `WER = the \`transcript\` events against the questions said. **Keeps up** = every question answered, frame lag p99 ≤ ${r.lag_limit_ms} ms, and every segment's transcript ready within ${r.ready_budget_ms} ms of its end at p99 (the segment ends 64 ms into the silence and a recognised question is confirmed at 300 ms, so the recogniser then adds nothing to the user's wait). Stopped: ${r.stopped_because}. ` +
      `CPU per session-second is all of Parley's threads (the decoder worker included), its idle CPU (${f(r.idle_cpu_ms_per_s)} ms per s) taken out, ÷ (sessions × clip seconds); the clients run in their own process and share the 2 cores.`,
  ].join('\n');
}
