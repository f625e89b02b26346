/**
 * One row of the streaming bench: its sessions at once (spread over a second), Parley's and the
 * bench process's CPU around them, then each turn's timings from the conversation records, paired
 * with the webhook call that answered it.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { ServerProcess } from '../lib/server-process.js';
import { conversationOf, type StoredMessage } from '../lib/bench-api.js';
import { timings, type BenchFakes, type Question } from './fakes.js';
import type { RowSamples } from './report.js';
import { runSession, type SessionResult } from './session.js';

export interface RowPlan {
  parley: ServerProcess;
  fakes: BenchFakes;
  questions: Question[];
  sessions: number;
  turns: number;
  gapMs: number;
}

export function emptySamples(): RowSamples {
  return {
    sessions: 0,
    asked: 0,
    session_seconds: 0,
    parley_cpu_ms: 0,
    bench_cpu_ms: 0,
    waits_ms: [],
    audio_start_ms: [],
    transcripts: 0,
    transcripts_as_said: 0,
    endpointing_ms: [],
    end_to_end_ms: [],
    confirmed_to_audio_ms: [],
    webhook_first_piece_ms: [],
    parley_share_ms: [],
    unpaired: 0,
  };
}

/** Turn k of every session asks question k (mod the list): what the recognisers' script says, in order. */
function questionsOf(plan: RowPlan, turns: number): Question[] {
  return Array.from({ length: turns }, (_, k) => plan.questions[k % plan.questions.length]!);
}

/** The lines the streaming recognisers say: each turn's question once per session, then spares. */
export function scriptOf(plan: RowPlan, sessions: number, turns: number): string[] {
  const asked = questionsOf(plan, turns).flatMap((q) => Array<string>(sessions).fill(q.text));
  // a question cut in two by a pause takes two lines: spares keep every later one a question
  const spares = Array.from({ length: sessions * 2 }, (_, i) => plan.questions[i % plan.questions.length]!.text);
  return [...asked, ...spares];
}

/** Runs `sessions` callers of the agent, `turns` questions each, and adds what they showed to `into`. */
export async function runRow(
  plan: RowPlan,
  agentToken: string,
  into: RowSamples,
  sessions = plan.sessions,
  turns = plan.turns,
): Promise<void> {
  plan.fakes.script(scriptOf(plan, sessions, turns));
  const url = plan.parley.url;
  const cpu0 = plan.parley.cpuMs();
  const bench0 = process.cpuUsage();
  const results = await Promise.all(
    Array.from({ length: sessions }, async (_, i) => {
      await sleep((i * 1000) / sessions); // no lockstep frames
      return runSession(url, agentToken, questionsOf(plan, turns), plan.gapMs);
    }),
  );
  const bench = process.cpuUsage(bench0);
  into.parley_cpu_ms += plan.parley.cpuMs() - cpu0;
  into.bench_cpu_ms += (bench.user + bench.system) / 1000;
  into.sessions += sessions;
  into.asked += sessions * turns;
  for (const r of results) {
    into.session_seconds += r.seconds;
    for (const t of r.turns) {
      if (t.wait_ms !== null) into.waits_ms.push(t.wait_ms);
      if (t.audio_start_ms !== null) into.audio_start_ms.push(t.audio_start_ms);
    }
    await addRecords(plan, r, into);
  }
}

/** The session's stored messages, once every answered turn's agent message is there (bounded). */
async function messagesOf(url: string, result: SessionResult): Promise<StoredMessage[]> {
  const answered = result.turns.filter((t) => t.wait_ms !== null).length;
  for (let tries = 0; ; tries++) {
    const { messages } = await conversationOf(url, result.session_id);
    const agent = messages.filter((m) => m.role === 'agent');
    if (agent.length >= answered || tries >= 20) return messages;
    await sleep(100);
  }
}

async function addRecords(plan: RowPlan, result: SessionResult, into: RowSamples): Promise<void> {
  const messages = await messagesOf(plan.parley.url, result);
  const users = messages.filter((m) => m.role === 'user');
  into.transcripts += users.length;
  into.transcripts_as_said += users.filter((m, i) => m.text === result.turns[i]?.said).length;
  const agents = messages.filter((m) => m.role === 'agent');
  const calls = plan.fakes.hookCalls.filter((c) => c.call.json.session_id === result.session_id);
  const paired = agents.length === calls.length;
  for (const [i, m] of agents.entries()) {
    const t = m.timings;
    if (m.status !== 'complete' || t?.['end_to_end_ms'] === undefined) continue;
    const endpointing = t['endpointing_ms'] ?? 0;
    into.end_to_end_ms.push(t['end_to_end_ms']);
    into.endpointing_ms.push(endpointing);
    const confirmedToAudio = t['end_to_end_ms'] - endpointing;
    into.confirmed_to_audio_ms.push(confirmedToAudio);
    const call = calls[i];
    if (!paired || call?.firstPieceAt === null || call === undefined) {
      into.unpaired++;
      continue;
    }
    const firstPiece = call.firstPieceAt - call.call.receivedAt;
    into.webhook_first_piece_ms.push(firstPiece);
    into.parley_share_ms.push(confirmedToAudio - firstPiece - timings.ttsFirstByteMs);
  }
}
