import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { api } from '../api/client.js';
import type { Agent, AgentStats, SavedAgent } from '../api/types.js';
import { Link, navigate, base } from '../router.js';
import { Talk } from '../talk/talk.js';
import { ConfirmButton, CopyButton, PageTitle } from '../ui/controls.js';
import { ms, when } from '../ui/format.js';
import { ErrorNote, Loading, Success } from '../ui/status.js';
import { forgetNames, PresetName } from '../ui/names.js';
import { useApi } from '../ui/use-api.js';
import { AgentSettings } from './agent-settings.js';
import { AgentTests } from './agent-tests.js';
import { Documents } from './documents.js';
import { AgentReadinessFacts, SaveWarnings, takeWarnings } from './readiness.js';

/** One agent: talk to it, its token, statistics, settings, documents; delete. */
export function AgentView({ id }: { id: string }): JSX.Element {
  const agent = useApi<Agent>(`/admin/v1/agents/${id}`);
  const [current, setCurrent] = useState<Agent | undefined>(undefined);
  const [actionError, setActionError] = useState<unknown>(undefined);
  const [talking, setTalking] = useState(false);
  const [createdWarnings] = useState(() => takeWarnings(id));
  const a = current ?? agent.data;
  if (a === undefined) {
    return (
      <>
        <PageTitle>Agent</PageTitle>
        {agent.error !== undefined ? <ErrorNote error={agent.error} /> : <Loading what="Loading the agent" />}
        <p>
          <Link href="/agents">Back to agents</Link>
        </p>
      </>
    );
  }
  const remove = async () => {
    try {
      await api(`/admin/v1/agents/${id}`, { method: 'DELETE' });
      forgetNames('agents');
      navigate(`${base}/agents`);
    } catch (err) {
      setActionError(err);
    }
  };
  return (
    <>
      <p class="crumbs">
        <Link href="/agents">Agents</Link> /
      </p>
      <PageTitle>{a.name}</PageTitle>
      <p class="muted">
        {a.id} · {a.mode} · preset <PresetName id={a.preset_id} /> · created {when(a.created_at)}
      </p>
      <SaveWarnings warnings={createdWarnings} />
      <div class="row">
        <button type="button" class="primary" aria-expanded={talking} onClick={() => setTalking(!talking)}>
          {talking ? 'Close the talk panel' : 'Talk to this agent'}
        </button>
        <Link href={`/conversations?agent_id=${a.id}`}>Conversations</Link>
        <Link href={`/sessions?agent_id=${a.id}`}>Sessions</Link>
        <ConfirmButton
          label="Delete agent"
          question={`Delete the agent “${a.name}”? Its token stops working at once, its documents are deleted and its live sessions end. Sessions, conversations and errors stay as history.`}
          confirmLabel="Delete the agent"
          onConfirm={remove}
        />
      </div>
      {actionError !== undefined && <ErrorNote error={actionError} />}
      {talking && (
        <div class="panel">
          <Talk agent={{ id: a.id, name: a.name, token: a.agent_token }} baseUrl={location.origin} />
        </div>
      )}
      <AgentReadinessFacts readiness={a.readiness} />
      <Token agent={a} onChange={setCurrent} />
      <Stats id={a.id} />
      <Documents agentId={a.id} ragEnabled={a.rag_enabled} />
      <AgentTests agentId={a.id} />
      <AgentSettings
        agent={a}
        onSaved={(saved: SavedAgent) => {
          forgetNames('agents');
          setCurrent(saved);
        }}
      />
    </>
  );
}

function Token({ agent, onChange }: { agent: Agent; onChange: (a: Agent) => void }): JSX.Element {
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
      <h2>Agent token</h2>
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

function Stats({ id }: { id: string }): JSX.Element {
  const stats = useApi<AgentStats>(`/admin/v1/agents/${id}/stats`);
  const s = stats.data;
  return (
    <section>
      <h2>Statistics</h2>
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
