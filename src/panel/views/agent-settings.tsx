import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError, api } from '../api/client.js';
import { helpText, schemaProperties, type PropertyInfo } from '../api/schema.js';
import type { Agent, Page, Preset, SavedAgent } from '../api/types.js';
import { Field } from '../ui/controls.js';
import { ErrorNote, Loading, Success } from '../ui/status.js';
import { useApi } from '../ui/use-api.js';
import { settingControl } from './agent-setting-control.js';
import { changes, grouped, initialValues, label } from './agent-settings-values.js';
import { SaveWarnings } from './readiness.js';

/** Every agent setting, each with its help text from /openapi.json (the AgentPatch schema). */
export function AgentSettings({ agent, onSaved }: { agent: Agent; onSaved: (a: SavedAgent) => void }): JSX.Element {
  const [props, setProps] = useState<PropertyInfo[] | undefined>(undefined);
  const [loadError, setLoadError] = useState<unknown>(undefined);
  const presets = useApi<Page<Preset>>('/admin/v1/presets?limit=100');
  useEffect(() => {
    schemaProperties('AgentPatch').then(setProps, setLoadError);
  }, []);
  return (
    <section>
      <h2>Settings</h2>
      {loadError !== undefined && <ErrorNote error={loadError} prefix="The settings form could not be built" />}
      {props === undefined && loadError === undefined && <Loading what="Loading the settings form" />}
      {props !== undefined && (
        <SettingsForm agent={agent} props={props} presets={presets.data?.data ?? []} onSaved={onSaved} />
      )}
    </section>
  );
}

function SettingsForm(props: {
  agent: Agent;
  props: PropertyInfo[];
  presets: Preset[];
  onSaved: (a: SavedAgent) => void;
}): JSX.Element {
  const { agent, presets, onSaved } = props;
  const fields = props.props;
  const [before, setBefore] = useState(() => initialValues(agent, fields));
  const [values, setValues] = useState(before);
  const [clearKey, setClearKey] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const [saved, setSaved] = useState<SavedAgent | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const set = (name: string, value: string | boolean) => setValues((v) => ({ ...v, [name]: value }));
  const invalid = new Set(
    error instanceof ApiError && Array.isArray(error.details)
      ? (error.details as { path?: string }[]).map((d) => d.path?.replace(/^body\./, '').split('.')[0])
      : [],
  );

  const submit = async (e: Event) => {
    e.preventDefault();
    setError(undefined);
    setSaved(undefined);
    try {
      const patch = changes(fields, before, values);
      if (clearKey) patch['webhook_api_key'] = null;
      if (Object.keys(patch).length === 0) throw new Error('Nothing changed.');
      setBusy(true);
      const updated = await api<SavedAgent>(`/admin/v1/agents/${agent.id}`, { method: 'PATCH', body: patch });
      const now = initialValues(updated, fields);
      setBefore(now);
      setValues(now);
      setClearKey(false);
      onSaved(updated);
      setSaved(updated);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="settings" onSubmit={(e) => void submit(e)} noValidate>
      {grouped(fields).map(([group, inGroup]) => (
        <fieldset key={group} class="group">
          <legend>{group}</legend>
          {inGroup.map((p) => (
            <Field key={p.name} label={label(p.name)} help={help(p, agent)}>
              {({ id, describedBy }) =>
                settingControl(p, values[p.name]!, set, { id, describedBy, invalid: invalid.has(p.name), presets })
              }
            </Field>
          ))}
          {group === 'Webhook and events' && agent.has_webhook_api_key && (
            <label class="check">
              <input type="checkbox" checked={clearKey} onChange={(e) => setClearKey(e.currentTarget.checked)} /> Remove
              the webhook API key
            </label>
          )}
        </fieldset>
      ))}
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Saving…' : 'Save settings'}
        </button>
      </div>
      {saved !== undefined && <Success>Settings saved.</Success>}
      <SaveWarnings warnings={saved?.warnings} />
      {error !== undefined && <ErrorNote error={error} prefix="Not saved" />}
    </form>
  );
}

function help(p: PropertyInfo, agent: Agent): string {
  const text = helpText(p);
  if (p.name === 'webhook_api_key') {
    return `${text} ${agent.has_webhook_api_key ? 'A key is set; leave empty to keep it.' : 'No key is set.'}`;
  }
  if (p.type === 'list') return `One a line. ${text}`;
  return text;
}
