import { AppError, NotFoundError } from '../../errors/app-errors.js';
import { newId } from '../../ids/new-id.js';
import {
  maxTestCases,
  type CaseResult,
  type TestCase,
  type TestCaseBody,
  type TestRun,
  type TestRunStatus,
} from '../../schemas/agent-test.js';
import { isoNow } from '../../schemas/timestamps.js';
import type { Keys } from '../keys.js';
import { pageByScore, type Page, type PageQuery } from '../pagination.js';
import type { Redis } from '../redis.js';

/** A run not yet finished, as the open-runs index names it. */
export interface OpenRun {
  agentId: string;
  runId: string;
}

/**
 * An agent's test cases (one hash, case id → JSON; at most `maxTestCases`) and test runs (one JSON
 * string each, indexed by creation time). Every key carries the agent's hash tag, so deleting an
 * agent's keys and a run's writes stay on its slot. Runs not finished are also in one index of all
 * agents, scored by the runner's last beat, so a restarted process can tell the runs it lost.
 */
export class AgentTestRepository {
  constructor(
    private readonly redis: Redis,
    private readonly keys: Keys,
  ) {}

  async listCases(agentId: string): Promise<TestCase[]> {
    const all = await this.redis.hGetAll(this.keys.agentTestCases(agentId));
    return Object.values(all)
      .map((json) => JSON.parse(json) as TestCase)
      .sort((a, b) => (a.id < b.id ? -1 : 1));
  }

  async getCase(agentId: string, caseId: string): Promise<TestCase> {
    const json = await this.redis.hGet(this.keys.agentTestCases(agentId), caseId);
    if (json === null || json === undefined) throw new NotFoundError('test case', caseId);
    return JSON.parse(json) as TestCase;
  }

  async createCase(agentId: string, body: TestCaseBody, now: number = Date.now()): Promise<TestCase> {
    const key = this.keys.agentTestCases(agentId);
    if ((await this.redis.hLen(key)) >= maxTestCases)
      throw new AppError(409, 'limit_reached', `an agent has at most ${maxTestCases} test cases`);
    const at = isoNow(now);
    const testCase: TestCase = {
      id: newId('agent_test', now),
      agent_id: agentId,
      ...body,
      created_at: at,
      updated_at: at,
    };
    await this.redis.hSet(key, testCase.id, JSON.stringify(testCase));
    return testCase;
  }

  async replaceCase(agentId: string, caseId: string, body: TestCaseBody): Promise<TestCase> {
    const old = await this.getCase(agentId, caseId);
    const testCase: TestCase = { ...old, ...body, updated_at: isoNow() };
    await this.redis.hSet(this.keys.agentTestCases(agentId), caseId, JSON.stringify(testCase));
    return testCase;
  }

  async deleteCase(agentId: string, caseId: string): Promise<void> {
    const removed = await this.redis.hDel(this.keys.agentTestCases(agentId), caseId);
    if (removed === 0) throw new NotFoundError('test case', caseId);
  }

  async createRun(agentId: string, caseIds: string[], now: number = Date.now()): Promise<TestRun> {
    const run: TestRun = {
      id: newId('test_run', now),
      agent_id: agentId,
      status: 'queued',
      case_ids: caseIds,
      results: [],
      error: null,
      created_at: isoNow(now),
      started_at: null,
      finished_at: null,
    };
    await this.redis
      .multi()
      .set(this.keys.agentTestRun(agentId, run.id), JSON.stringify(run))
      .zAdd(this.keys.agentTestRuns(agentId), { score: now, value: run.id })
      .exec();
    await this.redis.zAdd(this.keys.openTestRuns(), { score: now, value: `${agentId}/${run.id}` });
    return run;
  }

  async getRun(agentId: string, runId: string): Promise<TestRun> {
    const json = await this.redis.get(this.keys.agentTestRun(agentId, runId));
    if (json === null) throw new NotFoundError('test run', runId);
    return JSON.parse(json) as TestRun;
  }

  async listRuns(agentId: string, query: PageQuery): Promise<Page<TestRun>> {
    return pageByScore(this.redis, this.keys.agentTestRuns(agentId), query, async (ids) => {
      const values =
        ids.length === 0 ? [] : await this.redis.mGet(ids.map((id) => this.keys.agentTestRun(agentId, id)));
      return values.map((json) => (json === null ? null : (JSON.parse(json) as TestRun)));
    });
  }

  /** Writes the run as it now stands; a finished status takes it out of the open-runs index. */
  async saveRun(run: TestRun, now: number = Date.now()): Promise<void> {
    await this.redis.set(this.keys.agentTestRun(run.agent_id, run.id), JSON.stringify(run));
    const member = `${run.agent_id}/${run.id}`;
    if (isFinished(run.status)) await this.redis.zRem(this.keys.openTestRuns(), member);
    else await this.redis.zAdd(this.keys.openTestRuns(), { score: now, value: member });
  }

  /** Appends one case's result (the run is written whole: one runner owns it). */
  async addResult(run: TestRun, result: CaseResult): Promise<void> {
    run.results.push(result);
    await this.saveRun(run);
  }

  /** Runs not finished whose runner has not beaten since `before` (Unix ms). */
  async staleRuns(before: number): Promise<OpenRun[]> {
    const members = await this.redis.zRange(this.keys.openTestRuns(), '-inf', String(before), { BY: 'SCORE' });
    return members.flatMap((m) => {
      const [agentId, runId] = m.split('/');
      return agentId !== undefined && runId !== undefined ? [{ agentId, runId }] : [];
    });
  }

  /** Forgets an open-runs entry whose run record is gone (its agent was deleted). */
  async forgetOpenRun(open: OpenRun): Promise<void> {
    await this.redis.zRem(this.keys.openTestRuns(), `${open.agentId}/${open.runId}`);
  }
}

export function isFinished(status: TestRunStatus): boolean {
  return status === 'passed' || status === 'failed' || status === 'error';
}
