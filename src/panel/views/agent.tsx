import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { api } from '../api/client.js';
import type { Agent, SavedAgent } from '../api/types.js';
import { Link, navigate, base } from '../router.js';
import { Talk } from '../talk/talk.js';
import { ConfirmButton, PageTitle } from '../ui/controls.js';
import { when } from '../ui/format.js';
import { ErrorNote, Loading } from '../ui/status.js';
import { forgetNames, PresetName } from '../ui/names.js';
import { useApi } from '../ui/use-api.js';
import { AgentSections } from './agent-page.js';
import { useSettingsSchema } from './agent-settings.js';
import { AgentReadinessFacts, SaveWarnings, takeWarnings } from './readiness.js';

/** One agent: talk to it, its readiness, delete it; then its sections (agent-page.tsx). */
export function AgentView({ id }: { id: string }): JSX.Element {
  const agent = useApi<Agent>(`/admin/v1/agents/${id}`);
  const [current, setCurrent] = useState<Agent | undefined>(undefined);
  const [actionError, setActionError] = useState<unknown>(undefined);
  const [talking, setTalking] = useState(false);
  const [createdWarnings] = useState(() => takeWarnings(id));
  const schema = useSettingsSchema();
  const a = current ?? agent.data;
  // One load: the page shows once the agent and its settings form are both in.
  if (a === undefined || (schema.props === undefined && schema.error === undefined)) {
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
      <AgentSections
        agent={a}
        fields={schema.props ?? []}
        schemaError={schema.error}
        onChange={setCurrent}
        onSaved={(saved: SavedAgent) => {
          forgetNames('agents');
          setCurrent(saved);
        }}
      />
    </>
  );
}
