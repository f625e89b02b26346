import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError, api } from '../api/client.js';
import { helpText, schemaProperties, type PropertyInfo } from '../api/schema.js';
import type { Agent, Page, Preset, SavedAgent } from '../api/types.js';
import { Field } from '../ui/controls.js';
import { ErrorNote, Success } from '../ui/status.js';
import { useApi } from '../ui/use-api.js';
import { settingControl } from './agent-setting-control.js';
import { changes, initialValues, label, type Values } from './agent-settings-values.js';
import { SaveWarnings } from './readiness.js';

/** The id of the one settings form: every setting control names it (`form=`), wherever its section is. */
export const settingsFormId = 'agent-settings';

/** The agent settings the server accepts (the AgentPatch schema of /openapi.json), with their help text. */
export function useSettingsSchema(): { props?: PropertyInfo[]; error?: unknown } {
  const [state, setState] = useState<{ props?: PropertyInfo[]; error?: unknown }>({});
  useEffect(() => {
    schemaProperties('AgentPatch').then(
      (props) => setState({ props }),
      (error: unknown) => setState({ error }),
    );
  }, []);
  return state;
}

export interface SettingsForm {
  agent: Agent;
  values: Values;
  set: (name: string, value: string | boolean) => void;
  invalid: Set<string | undefined>;
  presets: Preset[];
  clearKey: boolean;
  setClearKey: (clear: boolean) => void;
  submit: (e: Event) => Promise<void>;
  busy: boolean;
  saved: SavedAgent | undefined;
  error: unknown;
}

/** One form's state over all the sections: the values, and a save that PATCHes only what changed. */
export function useSettingsForm(agent: Agent, fields: PropertyInfo[], onSaved: (a: SavedAgent) => void): SettingsForm {
  const presets = useApi<Page<Preset>>('/admin/v1/presets?limit=100');
  const [before, setBefore] = useState(() => initialValues(agent, fields));
  const [values, setValues] = useState(before);
  const [clearKey, setClearKey] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const [saved, setSaved] = useState<SavedAgent | undefined>(undefined);
  const [busy, setBusy] = useState(false);
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
  return {
    agent,
    values,
    set: (name, value) => setValues((v) => ({ ...v, [name]: value })),
    invalid: new Set(
      error instanceof ApiError && Array.isArray(error.details)
        ? (error.details as { path?: string }[]).map((d) => d.path?.replace(/^body\./, '').split('.')[0])
        : [],
    ),
    presets: presets.data?.data ?? [],
    clearKey,
    setClearKey,
    submit,
    busy,
    saved,
    error,
  };
}

/** A section's settings, one fieldset per legend, each with its help text. */
export function SettingsFieldsets(props: { form: SettingsForm; sets: [string, PropertyInfo[]][] }): JSX.Element {
  const { form, sets } = props;
  return (
    <>
      {sets.map(([legend, fields]) => (
        <fieldset key={legend} class="group settings">
          <legend>{legend}</legend>
          {fields.map((p) => (
            <SettingField key={p.name} form={form} p={p} />
          ))}
        </fieldset>
      ))}
    </>
  );
}

function SettingField({ form, p }: { form: SettingsForm; p: PropertyInfo }): JSX.Element {
  const { agent } = form;
  const control = (
    <Field label={label(p.name)} help={help(p, agent)}>
      {({ id, describedBy }) =>
        settingControl(p, form.values[p.name]!, form.set, {
          id,
          describedBy,
          invalid: form.invalid.has(p.name),
          presets: form.presets,
          form: settingsFormId,
        })
      }
    </Field>
  );
  if (p.name !== 'webhook_api_key' || !agent.has_webhook_api_key) return control;
  return (
    <>
      {control}
      <label class="check">
        <input
          type="checkbox"
          form={settingsFormId}
          checked={form.clearKey}
          onChange={(e) => form.setClearKey(e.currentTarget.checked)}
        />{' '}
        Remove the webhook API key
      </label>
    </>
  );
}

/**
 * The settings form itself: its Save button and what the save answered, kept in view at the foot
 * of the window while the settings' sections scroll by (the controls join it with `form=`).
 */
export function SaveBar({ form }: { form: SettingsForm }): JSX.Element {
  return (
    <form
      id={settingsFormId}
      class="save-bar"
      aria-label="Save the settings"
      onSubmit={(e) => void form.submit(e)}
      noValidate
    >
      <button type="submit" class="primary" disabled={form.busy}>
        {form.busy ? 'Saving…' : 'Save settings'}
      </button>
      {form.saved !== undefined && <Success>Settings saved.</Success>}
      <SaveWarnings warnings={form.saved?.warnings} />
      {form.error !== undefined && <ErrorNote error={form.error} prefix="Not saved" />}
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
