import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { api } from '../api/client.js';
import type { CaseResult, TestCase, TestRun } from '../api/types.js';
import { ConfirmButton, Field } from '../ui/controls.js';
import { when } from '../ui/format.js';
import { Badge, Empty, ErrorNote, Loading } from '../ui/status.js';
import { useApi, useInterval } from '../ui/use-api.js';
import { Link } from '../router.js';
import { ScrollRegion } from '../ui/scroll-region.js';
import { usePages } from '../ui/use-pages.js';

const statusBadge: Record<string, JSX.Element> = {
  queued: <Badge kind="info">queued</Badge>,
  running: <Badge kind="info">running</Badge>,
  passed: <Badge kind="ok">passed</Badge>,
  failed: <Badge kind="bad">failed</Badge>,
  error: <Badge kind="warn">error</Badge>,
};

const example = JSON.stringify(
  {
    name: 'books a table',
    turns: [{ say: 'I would like to book a table for four' }],
    expect: [
      { type: 'says', phrase: 'booked' },
      { type: 'wait_under_ms', ms: 3000 },
    ],
  },
  null,
  2,
);

/**
 * An agent's tests: its test cases (added as JSON, deleted), a button that runs them all, and the
 * runs with each case's result per expectation (polled while a run is queued or running).
 */
export function AgentTests({ agentId }: { agentId: string }): JSX.Element {
  const path = `/admin/v1/agents/${agentId}/tests`;
  const cases = useApi<{ data: TestCase[] }>(path);
  const runs = usePages<TestRun>(`${path}/runs?limit=10`);
  const [error, setError] = useState<unknown>(undefined);
  useInterval(
    runs.reload,
    2000,
    runs.items.some((r) => r.status === 'queued' || r.status === 'running'),
  );
  const act = async (fn: () => Promise<unknown>) => {
    setError(undefined);
    try {
      await fn();
    } catch (err) {
      setError(err);
    }
  };
  const list = cases.data?.data ?? [];
  // Inside the agent page's Tests section, which holds the heading.
  return (
    <>
      <p class="help">
        Scripted callers played as speech through the voice path; each run is a real session per case (marked
        <code> agent_test_run_id</code>). From CI: <code>npm run agent-test -- &lt;agent&gt;</code>.
      </p>
      {error !== undefined && <ErrorNote error={error} />}
      {cases.error !== undefined && <ErrorNote error={cases.error} />}
      {cases.loading && list.length === 0 && <Loading what="Loading test cases" />}
      {!cases.loading && list.length === 0 && cases.error === undefined && <Empty>No test cases yet.</Empty>}
      {list.length > 0 && (
        <>
          <ul class="test-cases">
            {list.map((c) => (
              <li key={c.id} data-test-case={c.name}>
                <strong>{c.name}</strong>{' '}
                <span class="muted">
                  {c.turns.length} turn(s): {c.turns.map((t) => `“${t.say}”`).join(' · ')}; expects{' '}
                  {c.expect.map((e) => e.type).join(', ')}
                </span>{' '}
                <ConfirmButton
                  label={`Delete ${c.name}`}
                  question={`Delete the test case “${c.name}”? Runs that played it keep their results.`}
                  confirmLabel="Delete the test case"
                  onConfirm={() =>
                    act(async () => (await api(`${path}/${c.id}`, { method: 'DELETE' }), cases.reload()))
                  }
                />
              </li>
            ))}
          </ul>
          <button
            type="button"
            class="primary"
            onClick={() =>
              void act(async () => (await api(`${path}/runs`, { method: 'POST', body: {} }), runs.reload()))
            }
          >
            Run all tests
          </button>
        </>
      )}
      <AddCase path={path} onAdded={cases.reload} />
      <h3>Runs</h3>
      {runs.error !== undefined && <ErrorNote error={runs.error} />}
      {runs.items.length === 0 && !runs.loading && <Empty>No runs yet.</Empty>}
      {runs.items.map((r) => (
        <RunView key={r.id} run={r} />
      ))}
      {runs.more}
    </>
  );
}

function AddCase({ path, onAdded }: { path: string; onAdded: () => void }): JSX.Element {
  const [text, setText] = useState(example);
  const [error, setError] = useState<unknown>(undefined);
  const submit = async (e: Event) => {
    e.preventDefault();
    setError(undefined);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (err) {
      setError(new Error(`not JSON: ${(err as Error).message}`));
      return;
    }
    try {
      await api(path, { method: 'POST', body });
      onAdded();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <form class="add-test-case" onSubmit={(e) => void submit(e)}>
      <Field
        label="Add a test case (JSON)"
        help="name; turns: [{say, pause_ms?, interrupt_after_ms?}]; expect: says (phrase | pattern, turn?), tool_called (name, arguments?), call_ended, transferred (to?), wait_under_ms (ms), judge (question)."
      >
        {({ id, describedBy }) => (
          <textarea
            id={id}
            rows={10}
            aria-describedby={describedBy}
            value={text}
            onInput={(e) => setText(e.currentTarget.value)}
          />
        )}
      </Field>
      <button type="submit">Add the test case</button>
      {error !== undefined && <ErrorNote error={error} prefix="Not added" />}
    </form>
  );
}

function RunView({ run }: { run: TestRun }): JSX.Element {
  return (
    <details class="test-run" open={run.status === 'failed' || run.status === 'error'} data-test-run={run.id}>
      <summary>
        {statusBadge[run.status]} {when(run.created_at)} · {run.results.length}/{run.case_ids.length} case(s)
        {run.error !== null && <span class="muted"> · {run.error}</span>}
      </summary>
      {run.results.length > 0 && (
        <ScrollRegion label={`Results of run ${run.id}`}>
          <table>
            <caption class="sr-only">Results per case and expectation</caption>
            <thead>
              <tr>
                <th scope="col">Case</th>
                <th scope="col">Expectation</th>
                <th scope="col">Result</th>
              </tr>
            </thead>
            <tbody>{run.results.flatMap((c) => caseRows(c))}</tbody>
          </table>
        </ScrollRegion>
      )}
    </details>
  );
}

function caseRows(c: CaseResult): JSX.Element[] {
  const head = (
    <th scope="row" rowSpan={Math.max(1, c.expectations.length)}>
      {statusBadge[c.status]} {c.name}
      {c.conversation_id !== null && (
        <div>
          <Link href={`/conversations/${c.conversation_id}`}>Conversation</Link>
        </div>
      )}
      {c.error !== null && <div class="muted">{c.error}</div>}
    </th>
  );
  if (c.expectations.length === 0)
    return [
      <tr key={c.case_id}>
        {head}
        <td colSpan={2} />
      </tr>,
    ];
  return c.expectations.map((e, i) => (
    <tr key={`${c.case_id}-${i}`}>
      {i === 0 && head}
      <td>{e.type}</td>
      <td>
        {e.passed ? <Badge kind="ok">passed</Badge> : <Badge kind="bad">failed</Badge>} {e.detail}
      </td>
    </tr>
  ));
}
