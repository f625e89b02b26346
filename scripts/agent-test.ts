/**
 * `npm run agent-test -- <agent id or name> [case id …]`: runs an agent's test cases on a running
 * Parley (PARLEY_URL, default http://127.0.0.1:8080; PARLEY_ADMIN_API_KEY), waits for the run and
 * prints each case's expectations. Exit 0: every expectation passed; 1: any failed; 2: the run
 * could not be made or a case could not be played (unknown agent, no cases, Parley unreachable).
 */
import type { CaseResult, TestRun } from '../src/schemas/agent-test.js';

const base = (process.env['PARLEY_URL'] ?? 'http://127.0.0.1:8080').replace(/\/+$/, '');
const apiKey = process.env['PARLEY_ADMIN_API_KEY'] ?? '';
const pollMs = Number(process.env['PARLEY_AGENT_TEST_POLL_MS'] ?? 1000);
const timeoutMs = Number(process.env['PARLEY_AGENT_TEST_TIMEOUT_MS'] ?? 30 * 60_000);

class Fatal extends Error {}

async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  let res: Response;
  try {
    res = await fetch(base + path, {
      method,
      headers: { 'X-API-Key': apiKey, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (err) {
    throw new Fatal(`cannot reach Parley at ${base}: ${(err as Error).message}`);
  }
  const text = await res.text();
  if (!res.ok) {
    let message = text;
    try {
      const parsed = JSON.parse(text) as { error?: { code?: string; message?: string } };
      message = `${parsed.error?.code ?? res.status}: ${parsed.error?.message ?? text}`;
    } catch {
      // not JSON: the text itself says it
    }
    throw new Fatal(`${method} ${path} answered ${res.status} ${message}`);
  }
  return JSON.parse(text) as T;
}

/** An `agt_…` id as it is, or the one agent with exactly that name. */
async function agentId(nameOrId: string): Promise<string> {
  if (/^agt_[0-9a-z]{26}$/.test(nameOrId)) return nameOrId;
  const found: string[] = [];
  let cursor: string | null = null;
  do {
    const page: { data: { id: string; name: string }[]; next_cursor: string | null } = await api(
      'GET',
      `/admin/v1/agents?limit=100${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`,
    );
    found.push(...page.data.filter((a) => a.name === nameOrId).map((a) => a.id));
    cursor = page.next_cursor;
  } while (cursor !== null);
  if (found.length === 0) throw new Fatal(`no agent named ${JSON.stringify(nameOrId)}`);
  if (found.length > 1)
    throw new Fatal(`${found.length} agents are named ${JSON.stringify(nameOrId)}: ${found.join(', ')}; pass an id`);
  return found[0]!;
}

function printCase(result: CaseResult): void {
  const mark = { passed: 'PASS', failed: 'FAIL', error: 'ERROR' }[result.status];
  process.stdout.write(`${mark} ${result.name} (${result.case_id}, conversation ${result.conversation_id ?? '-'})\n`);
  if (result.error !== null) process.stdout.write(`    error: ${result.error}\n`);
  for (const e of result.expectations)
    process.stdout.write(`    ${e.passed ? 'ok  ' : 'FAIL'} ${e.type}: ${e.detail}\n`);
}

async function main(): Promise<number> {
  const [target, ...caseIds] = process.argv.slice(2);
  if (target === undefined) throw new Fatal('usage: npm run agent-test -- <agent id or name> [case id …]');
  const id = await agentId(target);
  const started = await api<{ run_id: string }>(
    'POST',
    `/admin/v1/agents/${id}/tests/runs`,
    caseIds.length > 0 ? { case_ids: caseIds } : {},
  );
  process.stdout.write(`run ${started.run_id} of agent ${id}\n`);
  const deadline = Date.now() + timeoutMs;
  let run: TestRun;
  let printed = 0;
  for (;;) {
    run = await api<TestRun>('GET', `/admin/v1/agents/${id}/tests/runs/${started.run_id}`);
    for (const result of run.results.slice(printed)) printCase(result);
    printed = run.results.length;
    if (run.status === 'passed' || run.status === 'failed' || run.status === 'error') break;
    if (Date.now() > deadline) throw new Fatal(`the run did not finish within ${timeoutMs} ms (still ${run.status})`);
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
  const count = (s: string) => run.results.filter((r) => r.status === s).length;
  process.stdout.write(
    `${run.status}: ${count('passed')} passed, ${count('failed')} failed, ${count('error')} error${run.error === null ? '' : ` (${run.error})`}\n`,
  );
  return run.status === 'passed' ? 0 : run.status === 'failed' ? 1 : 2;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`agent-test: ${err instanceof Fatal ? err.message : String((err as Error).stack ?? err)}\n`);
    process.exitCode = 2;
  },
);
