import { expect, it } from 'vitest';
import { faultBed, type FaultBed } from './fault-bed.js';
import type { LaneAgent } from './fault-lanes.js';
import {
  bargeIn,
  chatFaults,
  hangUps,
  stayOn,
  typing,
  type Caller,
  type Expected,
  type MatrixSetup,
} from './fault-matrix.js';
import type { FaultKind, FaultStage } from './fault-upstream.js';

export interface FaultSuite {
  stage: FaultStage;
  expected: Record<FaultKind, Expected>;
  /** The stage's timeout in this bed. */
  timeoutMs: number;
  /** The agent each moment runs on (its settings pick the mode, tools, …). */
  agent(bed: FaultBed, lane: string, moment: 'stay-on' | 'barge-in' | 'hang-up' | 'chat'): Promise<LaneAgent>;
  /** How the caller speaks (default: typed turns). */
  caller?: Caller;
  /** Whether the stage is reached from POST /sdk/v1/chat too. */
  chat: boolean;
  /**
   * Also fault the round after a tool: an agent with a tool, whose turn's first call of the stage
   * (asking for the tool) goes through and the next (after the tool's result) fails; caller stays
   * on, and chat.
   */
  afterToolRound?: boolean;
}

const fileTimeoutMs = 110_000;

/**
 * Registers a typed-turn stage's fault matrix as a test file's tests: the three moments (and chat)
 * run at once on one bed, each its own test listing every case that broke; the last test checks
 * that the server came through.
 */
export function faultSuite(suite: FaultSuite): FaultBed {
  const bed = faultBed();
  const setup = (): MatrixSetup => ({
    bed,
    caller: suite.caller ?? typing,
    stage: suite.stage,
    expected: suite.expected,
    timeoutMs: suite.timeoutMs,
  });
  const { stage } = suite;
  it.concurrent(
    `the caller stays on: each ${stage} fault fails only its turn, with its record, and the next turn is answered`,
    async () => {
      const lane = `${stage}-stay`;
      expect(await stayOn(setup(), await suite.agent(bed, lane, 'stay-on'), lane)).toEqual([]);
    },
    fileTimeoutMs,
  );
  it.concurrent(
    `the caller barges in while the ${stage} call is in flight: the barge-in turn is answered`,
    async () => {
      const lane = `${stage}-barge`;
      expect(await bargeIn(setup(), await suite.agent(bed, lane, 'barge-in'), lane)).toEqual([]);
    },
    fileTimeoutMs,
  );
  it.concurrent(
    `the caller hangs up 0–300 ms after speaking into a ${stage} fault: the session ends client_hangup`,
    async () => {
      expect(await hangUps(setup(), (lane) => suite.agent(bed, lane, 'hang-up'))).toEqual([]);
    },
    fileTimeoutMs,
  );
  if (suite.chat) {
    it.concurrent(
      `chat: each ${stage} fault answers as documented, naming its record, and the next message is answered`,
      async () => {
        const lane = `${stage}-chat`;
        expect(await chatFaults(setup(), await suite.agent(bed, lane, 'chat'), lane)).toEqual([]);
      },
      fileTimeoutMs,
    );
  }
  if (suite.afterToolRound) {
    const afterTool = (): MatrixSetup => ({ ...setup(), healthyFirst: 1 });
    it.concurrent(
      `the caller stays on: each ${stage} fault on the round after a tool fails only its turn, with its record`,
      async () => {
        const lane = `${stage}-after-tool`;
        expect(await stayOn(afterTool(), await bed.agent(lane, { tools: true }), lane)).toEqual([]);
      },
      fileTimeoutMs,
    );
    it.concurrent(
      `chat: each ${stage} fault on the round after a tool answers as documented`,
      async () => {
        const lane = `${stage}-after-tool-chat`;
        expect(await chatFaults(afterTool(), await bed.agent(lane, { tools: true }), lane)).toEqual([]);
      },
      fileTimeoutMs,
    );
  }
  it('the server came through: same workers, no crash, the controls answered every turn, no unexpected 5xx', async () => {
    await bed.finish(expect);
  });
  return bed;
}
