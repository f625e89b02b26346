import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { api } from '../api/client.js';
import type { Agent, AgentStats } from '../api/types.js';
import { Link } from '../router.js';
import { ConfirmButton, CopyButton } from '../ui/controls.js';
import { ms, when } from '../ui/format.js';
import { ErrorNote, Loading, Success } from '../ui/status.js';
import { useApi } from '../ui/use-api.js';

/** The SDK's agent token: shown on request, copied, regenerated (after confirming). */
export function Token({ agent, onChange }: { agent: Agent; onChange: (a: Agent) => void }): JSX.Element {
  const [shown, setShown] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const [done, setDone] = useState(false);
  const regenerate = async () => {
    setError(undefined);
    try {
      onChange(await api<Agent>(`/admin/v1/agents/${agent.id}/regenerate-token`, { method: 'POST' }));
      setShown(true);
      setDone(true);
    } catch (err) {
      setError(err);
    }
  };
  return (
    <section>
      <h3>Agent token</h3>
      <p class="help">The SDK sends it as agent_token. Regenerating revokes the old token at once.</p>
      <div class="row">
        <code class="token" aria-label="Agent token">
          {shown ? agent.agent_token : `${agent.agent_token.slice(0, 8)}${'•'.repeat(16)}`}
        </code>
        <button type="button" aria-pressed={shown} onClick={() => setShown(!shown)}>
          {shown ? 'Hide' : 'Show'}
        </button>
        <CopyButton text={agent.agent_token} label="Copy token" />
        <ConfirmButton
          label="Regenerate token"
          question="Issue a new token? Clients using the old one stop working at once."
          confirmLabel="Regenerate"
          onConfirm={regenerate}
        />
      </div>
      {done && <Success>A new token was issued; the old one no longer works.</Success>}
      {error !== undefined && <ErrorNote error={error} />}
    </section>
  );
}

/** The agent's sessions, turns, messages and errors (GET /admin/v1/agents/{id}/stats). */
export function Stats({ id }: { id: string }): JSX.Element {
  const stats = useApi<AgentStats>(`/admin/v1/agents/${id}/stats`);
  const s = stats.data;
  return (
    <section>
      <h3>Statistics</h3>
      {stats.error !== undefined && <ErrorNote error={stats.error} />}
      {s === undefined ? (
        stats.loading && <Loading what="Loading statistics" />
      ) : (
        <dl class="facts">
          <dt>Sessions</dt>
          <dd>
            {s.sessions.total} ({s.sessions.active} live; {s.sessions.chat} chat, {s.sessions.voice} voice)
          </dd>
          <dt>Answered turns</dt>
          <dd>
            {s.turns} ({s.interrupted_turns} interrupted)
          </dd>
          <dt>Messages</dt>
          <dd>
            {s.messages.user} from users, {s.messages.agent} from the agent
          </dd>
          <dt>Errors</dt>
          <dd>
            {s.errors.total} ({s.errors.open} open) <Link href={`/errors?agent_id=${id}`}>see errors</Link>
          </dd>
          <dt>Mean response time</dt>
          <dd>{ms(s.avg_response_ms)}</dd>
          <dt>Last active</dt>
          <dd>{when(s.last_active_at)}</dd>
        </dl>
      )}
    </section>
  );
}
