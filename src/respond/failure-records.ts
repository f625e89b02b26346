import type { Logger } from 'pino';
import type { AgentReadiness } from '../agents/readiness.js';
import type { StoredAgent } from '../schemas/agent.js';
import type { Store } from '../store/store.js';
import { describeLlmError } from './answer-failure.js';

export interface FailureRecordsOptions {
  store: Pick<Store, 'errors'>;
  logger: Logger;
  /** A whole LLM call, first token to last (PARLEY_LLM_TIMEOUT_MS): what a timeout's message says. */
  llmTimeoutMs: number;
  /** What an `llm_not_configured` failure says: readiness' problem for the agent's LLM (every fix). */
  readiness?: Pick<AgentReadiness, 'llmProblem'> | undefined;
}

/** A failed answer as the operator's error record, and how an LLM failure is described in it. */
export class FailureRecords {
  constructor(private readonly o: FailureRecordsOptions) {}

  /**
   * A failed LLM call's record type, message and status. One that could not run here
   * (`llm_not_configured`) says what readiness says of the agent's LLM, so it names every fix
   * readiness offers, not only the fix of the provider that was tried.
   */
  async describeLlm(agent: StoredAgent, err: unknown): Promise<ReturnType<typeof describeLlmError>> {
    const described = describeLlmError(err, this.o.llmTimeoutMs);
    if (described.type !== 'llm_not_configured' || this.o.readiness === undefined) return described;
    const fixes = await this.o.readiness.llmProblem(agent).catch((readErr: unknown) => {
      this.o.logger.warn({ err: readErr, agent_id: agent.id }, "could not read the agent's readiness");
      return null;
    });
    // Readiness can lag a change (a model removed since it was read): the provider's own fix then.
    return { ...described, message: fixes ?? described.message };
  }

  /** Writes the error record; its id, or null (logged) when it could not be written. */
  async record(
    agent: StoredAgent,
    sessionId: string,
    failure: { type: string; message: string; status: number | null; latencyMs: number },
  ): Promise<string | null> {
    try {
      const rec = await this.o.store.errors.record({
        type: failure.type,
        message: failure.message,
        agent_id: agent.id,
        session_id: sessionId,
        status_code: failure.status,
        latency_ms: failure.latencyMs,
        details: { mode: agent.mode, ...(agent.mode === 'passthrough' ? { webhook_url: agent.webhook_url } : {}) },
      });
      return rec.id;
    } catch (err) {
      this.o.logger.error({ err, agent_id: agent.id, type: failure.type }, 'could not write error record');
      return null;
    }
  }
}
