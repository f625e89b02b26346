import type { AdminClient } from '../../test/support/admin-client.js';
import type { Caller } from '../../test/support/fault-matrix.js';
import { openVoiceCall, type LaneAgent, type VoiceCall } from '../../test/support/fault-lanes.js';
import { turnOutcome, type TurnOutcome, type TurnResult } from '../../test/support/turn-outcome.js';

/**
 * One soak caller: a voice call that takes turns until the deadline, each at a moment picked at
 * random: it stays on for the answer (most turns), barges in 0–600 ms into the turn with another
 * one, or hangs up 0–300 ms after speaking (by `end` or by closing the socket) and calls again.
 */

export interface CallerTally {
  /** Turns waited for: answered, failed (`turn_failed`), silent (no outcome in time), closed (the call dropped). */
  outcomes: Record<TurnOutcome, number>;
  /** Turns cut by the caller's own barge-in or hang-up (no outcome expected). */
  interrupted: number;
  hungUp: number;
  /** Every session this caller opened (to check their records and end reasons afterwards). */
  sessions: string[];
  /** Sessions the caller hung up (they must end `client_hangup`). */
  hungUpSessions: string[];
  /** `turn_failed` messages each session's client got (each needs an error record). */
  turnFailedBySession: Record<string, number>;
  /** Calls that could not be opened (the server refused or dropped the request), each retried after 1 s. */
  openFailures: number;
  /** Turns that came to nothing in time (or dropped the call): the moment and the messages seen, for the report. */
  unfinished: { session: string; moment: 'stay-on' | 'barge-in'; outcome: TurnOutcome; seen: string[] }[];
}

export interface SoakCallerOptions {
  api: AdminClient;
  agent: LaneAgent;
  caller: Caller;
  deadline: number;
  /** Turns not answered within this count as silent. */
  answerWithinMs: number;
  random: () => number;
}

export async function soakCaller(options: SoakCallerOptions): Promise<CallerTally> {
  const { api, agent, caller, random } = options;
  const tally: CallerTally = {
    outcomes: { answered: 0, failed: 0, silent: 0, closed: 0 },
    interrupted: 0,
    hungUp: 0,
    sessions: [],
    hungUpSessions: [],
    turnFailedBySession: {},
    openFailures: 0,
    unfinished: [],
  };
  const count = (call: VoiceCall, moment: 'stay-on' | 'barge-in', result: TurnResult) => {
    tally.outcomes[result.outcome]++;
    if (result.outcome === 'silent' || result.outcome === 'closed')
      tally.unfinished.push({ session: call.sessionId, moment, outcome: result.outcome, seen: result.seen });
  };
  const retire = (call: VoiceCall) => {
    tally.turnFailedBySession[call.sessionId] = call.client.events.filter(
      (e) => e.type === 'error' && e['code'] === 'turn_failed',
    ).length;
  };
  const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const open = async (): Promise<VoiceCall | null> => {
    while (performance.now() < options.deadline) {
      try {
        const opened = await openVoiceCall(api, agent);
        tally.sessions.push(opened.sessionId);
        return opened;
      } catch {
        // a worker that died takes its requests with it: counted, and tried again
        tally.openFailures++;
        await wait(1_000);
      }
    }
    return null;
  };
  let call = await open();
  for (let n = 1; call !== null && performance.now() < options.deadline; n++) {
    const moment = random();
    const words = `soak turn ${n}`;
    if (moment < 0.7) {
      const { from, text } = await caller.speak(call, words);
      const result = await turnOutcome(call.client, from, options.answerWithinMs, text === undefined ? {} : { text });
      count(call, 'stay-on', result);
    } else if (moment < 0.85) {
      await caller.speak(call, words);
      await wait(random() * 600);
      const { from, text } = await caller.speak(call, `${words}, no wait`);
      // typed: the barge-in turn's own outcome; spoken (no transcript to tell the turns apart): the
      // first answer or `turn_failed` after the second line began, whichever turn it belongs to
      const result = await turnOutcome(call.client, from, options.answerWithinMs, text === undefined ? {} : { text });
      tally.interrupted++;
      count(call, 'barge-in', result);
    } else {
      await caller.speak(call, words);
      await wait(random() * 300);
      if (n % 2 === 0) call.client.sendJson({ type: 'end' });
      else call.client.close();
      tally.hungUp++;
      tally.hungUpSessions.push(call.sessionId);
      retire(call);
      call = await open();
      continue;
    }
    if (call.client.closeCode !== null) {
      retire(call);
      call = await open();
    }
    await wait(300 + random() * 700);
  }
  if (call !== null) {
    call.client.sendJson({ type: 'end' });
    retire(call);
  }
  return tally;
}
