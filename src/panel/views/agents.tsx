import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, query } from '../api/client.js';
import type { Page, Preset, ProvidersHealth, SavedAgent } from '../api/types.js';
import { Link, navigate, base } from '../router.js';
import { Field, PageTitle } from '../ui/controls.js';
import { when } from '../ui/format.js';
import { Empty, ErrorNote, Loading } from '../ui/status.js';
import { useApi } from '../ui/use-api.js';
import { forgetNames, PresetName } from '../ui/names.js';
import { rememberWarnings } from './readiness.js';
import { ScrollRegion } from '../ui/scroll-region.js';
import { usePages } from '../ui/use-pages.js';

export function AgentsView(): JSX.Element {
  const [q, setQ] = useState('');
  const agents = usePages<SavedAgent>(`/admin/v1/agents${query({ q, limit: 50 })}`);
  return (
    <>
      <PageTitle>Agents</PageTitle>
      <CreateAgent />
      <section>
        <h2>All agents</h2>
        <Field label="Filter by name">
          {({ id }) => <input id={id} type="search" value={q} onInput={(e) => setQ(e.currentTarget.value)} />}
        </Field>
        {agents.error !== undefined && <ErrorNote error={agents.error} />}
        {agents.items.length === 0 && agents.loading && <Loading what="Loading agents" />}
        {agents.items.length === 0 && !agents.loading && agents.error === undefined && (
          <Empty>{q === '' ? 'No agents yet: create one above.' : 'No agent name contains that text.'}</Empty>
        )}
        {agents.items.length > 0 && (
          <ScrollRegion label="Agents">
            <table>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Mode</th>
                  <th scope="col">Preset</th>
                  <th scope="col">RAG</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {agents.items.map((a) => (
                  <tr key={a.id}>
                    <td>
                      <Link href={`/agents/${a.id}`}>{a.name}</Link>
                    </td>
                    <td>{a.mode}</td>
                    <td>
                      <PresetName id={a.preset_id} />
                    </td>
                    <td>{a.rag_enabled ? 'on' : 'off'}</td>
                    <td>{when(a.created_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </ScrollRegion>
        )}
        {agents.more}
      </section>
    </>
  );
}

function CreateAgent(): JSX.Element {
  const presets = useApi<Page<Preset>>('/admin/v1/presets?limit=100');
  const health = useApi<ProvidersHealth>('/health/providers');
  const [name, setName] = useState('');
  const [mode, setMode] = useState<'enhanced' | 'passthrough'>('enhanced');
  const [modeTouched, setModeTouched] = useState(false);
  // What works here: Parley answers itself (enhanced) only where the built-in LLM is usable; a server
  // that does not say keeps enhanced.
  const llmUsable = health.data?.built_in?.llm.usable;
  useEffect(() => {
    if (!modeTouched && llmUsable === false) setMode('passthrough');
  }, [llmUsable, modeTouched]);
  const [presetId, setPresetId] = useState('');
  const [webhookUrl, setWebhookUrl] = useState('');
  const [error, setError] = useState<unknown>(undefined);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const agent = await api<SavedAgent>('/admin/v1/agents', {
        method: 'POST',
        body: {
          name,
          mode,
          preset_id: presetId === '' ? null : presetId,
          ...(webhookUrl === '' ? {} : { webhook_url: webhookUrl }),
        },
      });
      forgetNames('agents');
      rememberWarnings(agent.id, agent.warnings);
      navigate(`${base}/agents/${agent.id}`);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section>
      <h2>New agent</h2>
      <form class="grid-form" onSubmit={(e) => void submit(e)}>
        <Field label="Name">
          {({ id }) => (
            <input id={id} name="name" required value={name} onInput={(e) => setName(e.currentTarget.value)} />
          )}
        </Field>
        <Field label="Mode" help={modeHelp(health.data)}>
          {({ id, describedBy }) => (
            <select
              id={id}
              name="mode"
              aria-describedby={describedBy}
              value={mode}
              onChange={(e) => {
                setModeTouched(true);
                setMode(e.currentTarget.value as typeof mode);
              }}
            >
              <option value="enhanced">enhanced</option>
              <option value="passthrough">passthrough</option>
            </select>
          )}
        </Field>
        <Field label="Preset" help={presets.error !== undefined ? 'Presets could not be loaded.' : undefined}>
          {({ id, describedBy }) => (
            <select
              id={id}
              name="preset"
              aria-describedby={describedBy}
              value={presetId}
              onChange={(e) => setPresetId(e.currentTarget.value)}
            >
              <option value="">Built-in default</option>
              {presets.data?.data.map((p) => (
                <option key={p.id} value={p.id}>
                  {p.name}
                </option>
              ))}
            </select>
          )}
        </Field>
        {mode === 'passthrough' && (
          <Field label="Webhook URL" help="Required in passthrough mode: it answers each user turn.">
            {({ id, describedBy }) => (
              <input
                id={id}
                name="webhook_url"
                type="url"
                aria-describedby={describedBy}
                value={webhookUrl}
                onInput={(e) => setWebhookUrl(e.currentTarget.value)}
              />
            )}
          </Field>
        )}
        <div class="actions">
          <button type="submit" class="primary" disabled={busy}>
            {busy ? 'Creating…' : 'Create agent'}
          </button>
        </div>
      </form>
      {error !== undefined && <ErrorNote error={error} prefix="The agent was not created" />}
    </section>
  );
}

function modeHelp(health: ProvidersHealth | undefined): string {
  const help = 'enhanced: Parley answers with its language model. passthrough: your webhook answers.';
  const llm = health?.built_in?.llm;
  if (llm === undefined || llm.usable) return help;
  return `${help} The built-in language model (${llm.provider} · ${llm.model}) is not usable here${
    llm.problem === null ? '' : `: ${llm.problem}`
  }; enhanced needs a preset with a usable one.`;
}
