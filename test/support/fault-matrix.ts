import type { ErrorRecord } from '../../src/schemas/error-record.js';
import { eventually } from './eventually.js';
import type { FaultBed } from './fault-bed.js';
import type { LaneAgent, VoiceCall } from './fault-lanes.js';
import { faultKinds, type Fault, type FaultKind, type FaultStage } from './fault-upstream.js';
import { fallbackPlayed, turnOutcome, type TurnOutcome } from './turn-outcome.js';

/**
 * The three moments of the fault matrix for one stage (STT, LLM, TTS, webhook, tool), spoken or
 * typed, and the same faults on POST /sdk/v1/chat. Each returns the problems it saw, one line per
 * case, so that a run lists every case that broke, not only the first.
 */

/** What a turn whose `stage` gets `fault` must come to. */
export interface Expected {
  /** `failed` (silence, `turn_failed`), or `answered` (a tool failure: the model is told). */
  outcome: 'failed' | 'answered';
  /** The error record's type. */
  type: string;
  /** For `tool_error`: `details.failure`. */
  failure?: string;
}

/** How the caller speaks a turn: typed, or real speech into the microphone. */
export interface Caller {
  /**
   * Starts a user turn; resolves at the end of its speech (typed: at once) with where its events
   * begin and, when known, the text its `transcript` will carry.
   */
  speak(call: VoiceCall, words: string): Promise<{ from: number; text?: string }>;
}

/** Typed turns (`{"type":"text"}`), transcribed as they are. */
export const typing: Caller = {
  speak(call, words) {
    const from = call.client.events.length;
    call.client.sendJson({ type: 'text', text: words });
    return Promise.resolve({ from, text: words });
  },
};

export interface MatrixSetup {
  bed: FaultBed;
  caller: Caller;
  stage: FaultStage;
  expected: Record<FaultKind, Expected>;
  /** The stage's timeout: how long Parley may take to give up on a hang or a drip. */
  timeoutMs: number;
  /** Calls of the stage a turn makes healthily before the faulty one (1: the LLM's round after a tool). */
  healthyFirst?: number;
}

/** Queues the fault for the turn about to be taken, after the calls it makes healthily. */
function injectFor(setup: MatrixSetup, lane: string, fault: Fault | FaultKind): void {
  for (let i = 0; i < (setup.healthyFirst ?? 0); i++) setup.bed.upstream.inject(lane, setup.stage, 'healthy');
  setup.bed.upstream.inject(lane, setup.stage, fault);
}

/** Within 0–300 ms: the offsets at which the caller hangs up or barges in, case by case. */
export const offsetsMs = [0, 75, 150, 225, 300];

export const answerWithinMs = 10_000;

/** Case i gets offset i (mod 5); the fault is held 150 ms so the moment falls both before and after it. */
export const held = (kind: FaultKind) => ({ kind, holdMs: 150 });

/** New error records of a session since `before`, once at least `count` more have come (or after 5 s). */
export async function newRecords(
  bed: FaultBed,
  sessionId: string,
  before: number,
  count: number,
): Promise<ErrorRecord[]> {
  const all = await eventually(
    () => bed.errorsOf(sessionId),
    (records) => records.length >= before + count,
    { timeoutMs: 5_000, intervalMs: 100, what: 'error records' },
  ).catch(() => bed.errorsOf(sessionId));
  return all.slice(before);
}

export function describeRecords(records: ErrorRecord[]): string {
  return JSON.stringify(records.map((r) => ({ type: r.type, failure: r.details['failure'], message: r.message })));
}

export function recordMatches(record: ErrorRecord | undefined, want: Expected): boolean {
  return record?.type === want.type && (want.failure === undefined || record.details['failure'] === want.failure);
}

/** A whole user turn: spoken, then its outcome (with `answerOnly`, only an answer ends the wait). */
async function turn(setup: MatrixSetup, call: VoiceCall, words: string, timeoutMs: number, answerOnly = false) {
  const { from, text } = await setup.caller.speak(call, words);
  return turnOutcome(call.client, from, timeoutMs, { ...(text === undefined ? {} : { text }), answerOnly });
}

/**
 * The caller stays on: one session, every fault in turn, each failing turn followed by a healthy
 * one. Each failing turn must end as expected with exactly one record of its type; the next turn
 * must be answered.
 */
export async function stayOn(setup: MatrixSetup, agent: LaneAgent, lane: string): Promise<string[]> {
  const { bed, stage, expected } = setup;
  const problems: string[] = [];
  const call = await bed.call(agent);
  const { client, sessionId } = call;
  for (const kind of faultKinds) {
    const want = expected[kind];
    const before = (await bed.errorsOf(sessionId)).length;
    injectFor(setup, lane, kind);
    const failing = await turn(setup, call, `question about ${kind}`, setup.timeoutMs + answerWithinMs);
    const records = await newRecords(bed, sessionId, before, 1);
    if (failing.outcome !== want.outcome)
      problems.push(
        `${stage} ${kind} stay-on: turn ${failing.outcome}, want ${want.outcome} (${failing.seen.join(',')})`,
      );
    if (records.length !== 1 || !recordMatches(records[0], want))
      problems.push(`${stage} ${kind} stay-on: records ${describeRecords(records)}, want one ${want.type}`);
    if (failing.outcome === 'failed' && failing.reason !== want.type)
      problems.push(`${stage} ${kind} stay-on: turn_failed reason ${failing.reason}, want ${want.type}`);
    // the agent's fallback line is said after any failure but its TTS's (which cannot speak)
    if (failing.outcome === 'failed' && stage !== 'tts' && !(await fallbackPlayed(client, failing.at!, answerWithinMs)))
      problems.push(`${stage} ${kind} stay-on: no fallback line after turn_failed (${failing.seen.join(',')})`);
    const next = await turn(setup, call, `and after ${kind}?`, answerWithinMs);
    if (next.outcome !== 'answered')
      problems.push(`${stage} ${kind} stay-on: the next turn ${next.outcome} (${next.seen.join(',')})`);
    if (client.closeCode !== null) {
      problems.push(`${stage} ${kind} stay-on: the call closed ${client.closeCode} ${client.closeReason}`);
      return problems;
    }
  }
  client.sendJson({ type: 'end' });
  return problems;
}

/**
 * The caller barges in while the failing stage is in flight, 0–300 ms after its request arrived. The barge-in turn must be answered; the cut turn may leave at most one record,
 * of its type.
 */
export async function bargeIn(setup: MatrixSetup, agent: LaneAgent, lane: string): Promise<string[]> {
  const { bed, stage, expected } = setup;
  const problems: string[] = [];
  const call = await bed.call(agent);
  const { client, sessionId } = call;
  for (const [i, kind] of faultKinds.entries()) {
    const before = (await bed.errorsOf(sessionId)).length;
    const calls = bed.upstream.callsOf(lane, stage).length;
    injectFor(setup, lane, held(kind));
    await setup.caller.speak(call, `long question about ${kind}`);
    try {
      await bed.upstream.until(() => bed.upstream.callsOf(lane, stage).length > calls, 10_000, `${stage} call`);
    } catch (err) {
      problems.push(`${stage} ${kind} barge-in: ${(err as Error).message}`);
      continue;
    }
    await new Promise((r) => setTimeout(r, offsetsMs[i % offsetsMs.length]));
    // speech: whatever became of the first utterance, the caller's words go on to an answer
    const barging = await turn(setup, call, `barging in on ${kind}`, answerWithinMs, setup.caller !== typing);
    if (barging.outcome !== 'answered')
      problems.push(`${stage} ${kind} barge-in: the barge-in turn ${barging.outcome} (${barging.seen.join(',')})`);
    const records = await newRecords(bed, sessionId, before, 0);
    if (records.length > 1 || (records.length === 1 && !recordMatches(records[0], expected[kind])))
      problems.push(
        `${stage} ${kind} barge-in: records ${describeRecords(records)}, want at most one ${expected[kind].type}`,
      );
    if (client.closeCode !== null) {
      problems.push(`${stage} ${kind} barge-in: the call closed ${client.closeCode} ${client.closeReason}`);
      return problems;
    }
  }
  client.sendJson({ type: 'end' });
  return problems;
}

/**
 * The caller hangs up 0–300 ms after the end of a turn's speech (by `end`, or by closing the socket), each
 * fault in a session of its own, all at once. Each session must end `client_hangup`, with at most
 * one record, of the fault's type.
 */
export async function hangUps(setup: MatrixSetup, agentOf: (lane: string) => Promise<LaneAgent>): Promise<string[]> {
  const { bed, stage, expected } = setup;
  const outcomes = await Promise.all(
    faultKinds.map(async (kind, i): Promise<string[]> => {
      const lane = `${stage}-hangup-${kind}`;
      const agent = await agentOf(lane);
      const call: VoiceCall = await bed.call(agent);
      injectFor(setup, lane, held(kind));
      await setup.caller.speak(call, `question about ${kind}, then gone`);
      await new Promise((r) => setTimeout(r, offsetsMs[i % offsetsMs.length]));
      if (i % 2 === 0) call.client.sendJson({ type: 'end' });
      else call.client.close();
      const session = await eventually(
        () => bed.request('GET', `/admin/v1/sessions/${call.sessionId}`),
        (r) => r.body.status === 'ended',
        { timeoutMs: 10_000, intervalMs: 100, what: `session ${call.sessionId} ended` },
      ).catch((err: Error) => ({ body: { end_reason: err.message } }));
      const problems: string[] = [];
      if (session.body.end_reason !== 'client_hangup')
        problems.push(`${stage} ${kind} hang-up: ended ${String(session.body.end_reason)}, want client_hangup`);
      // the failing call may still be settling: give it the stage's time to leave a record
      await new Promise((r) => setTimeout(r, setup.timeoutMs));
      const records = await bed.errorsOf(call.sessionId);
      if (records.length > 1 || (records.length === 1 && !recordMatches(records[0], expected[kind])))
        problems.push(
          `${stage} ${kind} hang-up: records ${describeRecords(records)}, want at most one ${expected[kind].type}`,
        );
      return problems;
    }),
  );
  return outcomes.flat();
}

/** The chat outcome of a failed turn: 502/504 with `details.error_id`, or 200 for a tool failure. */
export async function chatFaults(setup: MatrixSetup, agent: LaneAgent, lane: string): Promise<string[]> {
  const { bed, stage, expected } = setup;
  const problems: string[] = [];
  const chat = (message: string, sessionId?: string) =>
    bed.request('POST', '/sdk/v1/chat', {
      apiKey: null,
      body: { agent_token: agent.token, message, ...(sessionId === undefined ? {} : { session_id: sessionId }) },
    });
  // a chat session whose first message fails ends with it: the faults come once it has answered
  const opened = await chat('hello');
  if (opened.status !== 200) return [`${stage} chat: the first message ${opened.status}`];
  const sessionId = opened.body.session_id as string;
  for (const kind of faultKinds) {
    const want = expected[kind];
    injectFor(setup, lane, kind);
    const before = (await bed.errorsOf(sessionId)).length;
    const res = await chat(`chat question about ${kind}`, sessionId);
    const got: TurnOutcome = res.status === 200 ? 'answered' : 'failed';
    if (got !== want.outcome || (got === 'failed' && ![502, 504].includes(res.status)))
      problems.push(`${stage} ${kind} chat: ${res.status} ${JSON.stringify(res.body)}, want ${want.outcome}`);
    const records = await newRecords(bed, sessionId, before, 1);
    if (records.length !== 1 || !recordMatches(records[0], want))
      problems.push(`${stage} ${kind} chat: records ${describeRecords(records)}, want one ${want.type}`);
    if (got === 'failed' && res.body?.error?.details?.error_id !== records[0]?.id)
      problems.push(
        `${stage} ${kind} chat: details.error_id ${String(res.body?.error?.details?.error_id)} is not the record`,
      );
    const next = await chat(`and after ${kind}?`, sessionId);
    if (next.status !== 200) problems.push(`${stage} ${kind} chat: the next message ${next.status}`);
  }
  return problems;
}
