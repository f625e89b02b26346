import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logging/logger.js';
import { ProviderError, ProviderNotConfigured } from '../../src/providers/provider-error.js';
import type { StoredAgent } from '../../src/schemas/agent.js';
import { FailureRecords } from '../../src/respond/failure-records.js';
import type { Store } from '../../src/store/store.js';

/** How an LLM failure is described in its error record (and so to chat and voice callers). */

const agent = { id: 'agt_1', mode: 'enhanced' } as StoredAgent;
const notConfigured = new ProviderNotConfigured('openai', 'not configured: set OPENAI_API_KEY');
const records = (llmProblem: () => Promise<string | null>) =>
  new FailureRecords({
    store: {} as Pick<Store, 'errors'>,
    logger: createLogger('silent'),
    llmTimeoutMs: 30_000,
    readiness: { llmProblem },
  });

describe('an LLM that cannot run here (llm_not_configured)', () => {
  it("is said in readiness' words, naming every fix it offers", async () => {
    const fixes = 'no llm provider is usable here: openai: set OPENAI_API_KEY; local-llama: no model installed';
    expect(await records(async () => fixes).describeLlm(agent, notConfigured)).toEqual({
      type: 'llm_not_configured',
      message: fixes,
      status: null,
    });
  });

  it("keeps the provider's own fix when readiness sees nothing wrong yet, or cannot be read", async () => {
    const own = { type: 'llm_not_configured', message: 'openai: not configured: set OPENAI_API_KEY', status: null };
    expect(await records(async () => null).describeLlm(agent, notConfigured)).toEqual(own);
    const down = () => Promise.reject(new Error('redis is down'));
    expect(await records(down).describeLlm(agent, notConfigured)).toEqual(own);
  });
});

it('other LLM failures are not rewritten (readiness is not asked)', async () => {
  let asked = 0;
  const failure = await records(async () => (asked++, 'fixes')).describeLlm(
    agent,
    new ProviderError('openai', 'HTTP 500', { cause: { status: 500 } }),
  );
  expect(failure).toEqual({ type: 'llm_error', message: 'language model call failed: HTTP 500', status: 500 });
  expect(asked).toBe(0);
});
