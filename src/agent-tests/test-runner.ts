import { AppError, NotFoundError } from '../errors/app-errors.js';
import type { TestRun } from '../schemas/agent-test.js';
import { isoNow } from '../schemas/timestamps.js';
import { isFinished } from '../store/repositories/agent-tests.js';
import { playCase, type CaseDeps } from './play-case.js';
import { defaultTestCallTimings, type TestCallTimings } from './test-call.js';

export interface AgentTestRunnerOptions extends Omit<CaseDeps, 'timings'> {
  timings?: Partial<TestCallTimings> | undefined;
  /** How often a running run's beat is written; a run not beaten for 6 beats is taken as lost. */
  beatMs?: number | undefined;
}

/** Where the runner reaches this server's WebSocket media endpoint: the address a request came in on. */
export type MediaOrigin = string;

/**
 * Agent test runs (issue 24). A run is stored `queued` and answered at once; this process then
 * plays its cases one after another, each as a new voice session of the agent, and stores each
 * case's result as it is decided. Runs of a process go one at a time, so tests add at most one
 * session at a time to the agent's load; the sessions are ordinary ones (marked in `metadata`),
 * each taking a token from the agent's SDK rate limit, so they count against its limits and are
 * never given room a live call would need.
 *
 * Runs do not resume after a restart: a run cut by a shutdown is stored `error` (`shutdown`), and
 * one whose process died is stored `error` (`lost`) by the next process to start, once its beat is
 * stale. Playing the rest later would mix two servers' timings in one result.
 */
export class AgentTestRunner {
  private queue: Promise<void> = Promise.resolve();
  private readonly open = new Map<string, TestRun>();
  private closed = false;
  private beat: NodeJS.Timeout | null = null;
  private readonly beatMs: number;
  private readonly deps: CaseDeps;

  constructor(private readonly o: AgentTestRunnerOptions) {
    this.beatMs = o.beatMs ?? 5_000;
    this.deps = { ...o, timings: { ...defaultTestCallTimings, ...o.timings } };
  }

  /** Marks lost runs and starts beating for the runs of this process. */
  start(): void {
    this.beat = setInterval(() => void this.beatAndSweep(), this.beatMs);
    this.beat.unref();
    void this.beatAndSweep();
  }

  /** Stores a new run of `caseIds` (default: every case of the agent) and queues it. */
  async startRun(agentId: string, caseIds: string[] | undefined, origin: MediaOrigin): Promise<TestRun> {
    if (this.closed) throw new AppError(503, 'shutting_down', 'this server is shutting down');
    await this.o.store.agents.getStored(agentId); // 404 for an unknown agent
    const cases = await this.o.store.agentTests.listCases(agentId);
    const chosen = caseIds ?? cases.map((c) => c.id);
    const missing = chosen.filter((id) => !cases.some((c) => c.id === id));
    if (missing.length > 0) throw new NotFoundError('test case', missing.join(', '));
    if (chosen.length === 0)
      throw new AppError(409, 'no_test_cases', 'the agent has no test cases: add one with POST …/tests');
    const run = await this.o.store.agentTests.createRun(agentId, chosen);
    const answer = structuredClone(run); // as stored: the queued run changes from here on
    this.open.set(run.id, run);
    this.queue = this.queue.then(() => this.play(run, origin));
    return answer;
  }

  /** Stops taking runs; the running and queued ones are stored `error` (`shutdown`). */
  async close(): Promise<void> {
    this.closed = true;
    if (this.beat !== null) clearInterval(this.beat);
    for (const run of this.open.values())
      await this.finish(run, 'error', 'shutdown: the server stopped during the run');
  }

  private async play(run: TestRun, origin: MediaOrigin): Promise<void> {
    if (this.closed) return;
    try {
      run.status = 'running';
      run.started_at = isoNow();
      await this.o.store.agentTests.saveRun(run);
      const agent = await this.o.store.agents.getStored(run.agent_id);
      for (const caseId of run.case_ids) {
        if (this.closed) return;
        const testCase = await this.o.store.agentTests.getCase(run.agent_id, caseId).catch((err: unknown) => {
          if (err instanceof NotFoundError) return null; // deleted since the run was asked for
          throw err;
        });
        const result =
          testCase === null
            ? {
                case_id: caseId,
                name: '',
                status: 'error' as const,
                session_id: null,
                conversation_id: null,
                error: 'the test case was deleted',
                waits_ms: [],
                expectations: [],
              }
            : await playCase(this.deps, agent, run, testCase, origin);
        if (this.closed) return;
        await this.o.store.agentTests.addResult(run, result);
      }
      const statuses = run.results.map((r) => r.status);
      await this.finish(
        run,
        statuses.includes('error') ? 'error' : statuses.includes('failed') ? 'failed' : 'passed',
        null,
      );
    } catch (err) {
      this.o.logger.error({ err, run_id: run.id, agent_id: run.agent_id }, 'agent test run failed');
      await this.finish(run, 'error', (err as Error).message);
    }
  }

  private async finish(run: TestRun, status: 'passed' | 'failed' | 'error', error: string | null): Promise<void> {
    if (!this.open.delete(run.id)) return;
    run.status = status;
    run.error = error;
    run.finished_at = isoNow();
    try {
      await this.o.store.agentTests.saveRun(run);
    } catch (err) {
      this.o.logger.error({ err, run_id: run.id }, 'could not store the end of an agent test run');
    }
    this.o.logger.info({ run_id: run.id, agent_id: run.agent_id, status }, 'agent test run finished');
  }

  private async beatAndSweep(): Promise<void> {
    const tests = this.o.store.agentTests;
    try {
      for (const run of this.open.values()) await tests.saveRun(run);
      for (const lost of await tests.staleRuns(Date.now() - 6 * this.beatMs)) {
        if (this.open.has(lost.runId)) continue;
        const run = await tests.getRun(lost.agentId, lost.runId).catch((err: unknown) => {
          if (err instanceof NotFoundError) return null;
          throw err;
        });
        if (run === null || isFinished(run.status)) {
          await tests.forgetOpenRun(lost);
          continue;
        }
        run.status = 'error';
        run.error = 'lost: the server running it stopped before it finished';
        run.finished_at = isoNow();
        await tests.saveRun(run);
      }
    } catch (err) {
      this.o.logger.warn({ err }, 'agent test runs: beat or sweep failed; tried again at the next beat');
    }
  }
}
