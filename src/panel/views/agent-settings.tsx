import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError, api } from '../api/client.js';
import { helpText, schemaProperties, type PropertyInfo } from '../api/schema.js';
import type { Agent, Page, Preset } from '../api/types.js';
import { Field } from '../ui/controls.js';
import { ErrorNote, Loading, Success } from '../ui/status.js';
import { useApi } from '../ui/use-api.js';

const labels: Record<string, string> = {
  preset_id: 'Preset',
  webhook_url: 'Webhook URL',
  webhook_api_key: 'Webhook API key',
  events_url: 'Events URL',
  rag_enabled: 'RAG enabled',
  vad_threshold: 'VAD threshold',
  metadata: 'Metadata (JSON)',
  tools: 'Tools (JSON)',
  expected_phrases: 'Expected phrases (JSON list)',
};

export function label(name: string): string {
  const known = labels[name];
  if (known !== undefined) return known;
  const text = name.replace(/_ms$/, ' (ms)').replace(/_/g, ' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

type Values = Record<string, string | boolean>;

/** Settings grouped the way operators think of them; a setting the schema adds later lands in "Other". */
const groups: [string, string[]][] = [
  [
    'General',
    [
      'name',
      'description',
      'mode',
      'preset_id',
      'system_prompt',
      'greeting',
      'language',
      'expected_phrases',
      'rag_enabled',
    ],
  ],
  ['Webhook and events', ['webhook_url', 'webhook_api_key', 'webhook_timeout_ms', 'events_url']],
  [
    'Turn-taking (voice)',
    [
      'vad_threshold',
      'min_silence_ms',
      'prefix_padding_ms',
      'max_utterance_ms',
      'interruptions_enabled',
      'interruption_min_speech_ms',
    ],
  ],
  ['Session limits (voice)', ['idle_timeout_ms', 'max_duration_ms']],
];

function grouped(fields: PropertyInfo[]): [string, PropertyInfo[]][] {
  const known = new Set(groups.flatMap(([, names]) => names));
  const result = groups.map(([group, names]): [string, PropertyInfo[]] => [
    group,
    names.flatMap((n) => fields.filter((f) => f.name === n)),
  ]);
  result.push(['Other', fields.filter((f) => !known.has(f.name))]);
  return result.filter(([, inGroup]) => inGroup.length > 0);
}

function initialValues(agent: Agent, props: PropertyInfo[]): Values {
  const record = agent as unknown as Record<string, unknown>;
  const values: Values = {};
  for (const p of props) {
    const v = record[p.name];
    if (p.name === 'webhook_api_key') values[p.name] = '';
    else if (p.type === 'boolean') values[p.name] = v === true;
    else if (p.type === 'object') values[p.name] = JSON.stringify(v ?? {}, null, 2);
    else values[p.name] = v === null || v === undefined ? '' : String(v);
  }
  return values;
}

/** The PATCH body: only the settings that changed, in the API's types. */
function changes(props: PropertyInfo[], before: Values, after: Values): Record<string, unknown> {
  const patch: Record<string, unknown> = {};
  for (const p of props) {
    const v = after[p.name];
    if (v === before[p.name]) continue;
    if (p.name === 'webhook_api_key' && v === '') continue;
    if (typeof v === 'boolean') patch[p.name] = v;
    else if (p.type === 'object') {
      try {
        patch[p.name] = JSON.parse(v ?? '{}');
      } catch {
        throw new Error(`${label(p.name)} is not valid JSON`);
      }
    } else if (v === '' && p.nullable) patch[p.name] = null;
    else if (p.type === 'number' || p.type === 'integer') patch[p.name] = v === '' ? Number.NaN : Number(v);
    else patch[p.name] = v;
  }
  return patch;
}

/** Every agent setting, each with its help text from /openapi.json (the AgentPatch schema). */
export function AgentSettings({ agent, onSaved }: { agent: Agent; onSaved: (a: Agent) => void }): JSX.Element {
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
  onSaved: (a: Agent) => void;
}): JSX.Element {
  const { agent, presets, onSaved } = props;
  const fields = props.props;
  const [before, setBefore] = useState(() => initialValues(agent, fields));
  const [values, setValues] = useState(before);
  const [clearKey, setClearKey] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const [saved, setSaved] = useState(false);
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
    setSaved(false);
    try {
      const patch = changes(fields, before, values);
      if (clearKey) patch['webhook_api_key'] = null;
      if (Object.keys(patch).length === 0) throw new Error('Nothing changed.');
      setBusy(true);
      const updated = await api<Agent>(`/admin/v1/agents/${agent.id}`, { method: 'PATCH', body: patch });
      const now = initialValues(updated, fields);
      setBefore(now);
      setValues(now);
      setClearKey(false);
      onSaved(updated);
      setSaved(true);
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
                control(p, values[p.name]!, set, { id, describedBy, invalid: invalid.has(p.name), presets })
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
      {saved && <Success>Settings saved.</Success>}
      {error !== undefined && <ErrorNote error={error} prefix="Not saved" />}
    </form>
  );
}

function help(p: PropertyInfo, agent: Agent): string {
  const text = helpText(p);
  if (p.name === 'webhook_api_key') {
    return `${text} ${agent.has_webhook_api_key ? 'A key is set; leave empty to keep it.' : 'No key is set.'}`;
  }
  return text;
}

function control(
  p: PropertyInfo,
  value: string | boolean,
  set: (name: string, value: string | boolean) => void,
  o: { id: string; describedBy: string | undefined; invalid: boolean; presets: Preset[] },
): JSX.Element {
  const common = { id: o.id, name: p.name, 'aria-describedby': o.describedBy, 'aria-invalid': o.invalid || undefined };
  if (p.name === 'preset_id') {
    return (
      <select {...common} value={String(value)} onChange={(e) => set(p.name, e.currentTarget.value)}>
        <option value="">Built-in default</option>
        {o.presets.map((preset) => (
          <option key={preset.id} value={preset.id}>
            {preset.name}
          </option>
        ))}
        {value !== '' && !o.presets.some((x) => x.id === value) && (
          <option value={String(value)}>{String(value)}</option>
        )}
      </select>
    );
  }
  if (p.type === 'boolean') {
    return (
      <input
        {...common}
        type="checkbox"
        checked={value === true}
        onChange={(e) => set(p.name, e.currentTarget.checked)}
      />
    );
  }
  if (p.enum !== undefined) {
    return (
      <select {...common} value={String(value)} onChange={(e) => set(p.name, e.currentTarget.value)}>
        {p.enum.map((v) => (
          <option key={v} value={v}>
            {v}
          </option>
        ))}
      </select>
    );
  }
  if (p.type === 'number' || p.type === 'integer') {
    return (
      <input
        {...common}
        type="number"
        inputMode="decimal"
        step={p.type === 'integer' ? 1 : 'any'}
        min={p.minimum}
        max={p.maximum}
        value={String(value)}
        onInput={(e) => set(p.name, e.currentTarget.value)}
      />
    );
  }
  if (p.type === 'object' || ((p.maxLength ?? 0) >= 2000 && !p.name.endsWith('_url'))) {
    return (
      <textarea
        {...common}
        rows={p.type === 'object' ? 4 : 5}
        value={String(value)}
        onInput={(e) => set(p.name, e.currentTarget.value)}
      />
    );
  }
  const onInput = (e: { currentTarget: HTMLInputElement }) => set(p.name, e.currentTarget.value);
  if (p.name === 'webhook_api_key') {
    return <input {...common} type="password" autocomplete="new-password" value={String(value)} onInput={onInput} />;
  }
  if (p.name.endsWith('_url')) {
    return <input {...common} type="url" autocomplete="off" value={String(value)} onInput={onInput} />;
  }
  return (
    <input {...common} type="text" autocomplete="off" maxLength={p.maxLength} value={String(value)} onInput={onInput} />
  );
}
