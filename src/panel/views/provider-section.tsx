import type { JSX } from 'preact';
import { useId } from 'preact/hooks';
import type { ProviderAvailability } from '../api/types.js';
import { Field } from '../ui/controls.js';
import { Badge } from '../ui/status.js';

export type Capability = ProviderAvailability['capability'];

/** One preset section as the API takes it (stt, llm, tts or embeddings). */
export type Section = { provider: string; model: string } & Record<string, string | number | null | undefined>;

/** The extra settings of each section: name, label, default. */
const extras: Record<Capability, [string, string, number | null][]> = {
  stt: [['language', 'Language hint (empty: detect)', null]],
  llm: [
    ['temperature', 'Temperature (0–2)', 0.7],
    ['max_tokens', 'Most tokens per answer', 512],
  ],
  tts: [['speed', 'Speed (0.25–4)', 1]],
  embeddings: [],
};

export function sectionFor(capability: Capability, providers: ProviderAvailability[], current?: object): Section {
  if (current !== undefined) return { ...(current as Section) };
  const choices = providers.filter((p) => p.capability === capability);
  const first = choices.find((p) => p.configured) ?? choices[0];
  const section: Section = { provider: first?.provider ?? '', model: first?.default_model ?? first?.models[0] ?? '' };
  if (capability === 'tts') section['voice'] = first?.default_voice ?? first?.voices[0] ?? '';
  for (const [name, , fallback] of extras[capability]) section[name] = fallback;
  return section;
}

/**
 * Provider, model and voice pickers for one capability; unconfigured providers say why. With
 * `noneLabel`, the section may also be null (the API's "not set: the deployment's default"), offered
 * as the first provider choice under that label.
 */
export function ProviderSection(props: {
  capability: Capability;
  title: string;
  providers: ProviderAvailability[];
  value: Section | null;
  onChange: (s: Section | null) => void;
  noneLabel?: string;
}): JSX.Element {
  const { capability, title, providers, value, onChange, noneLabel } = props;
  const listId = useId();
  const chosen = value === null ? undefined : providers.find((p) => p.provider === value.provider);
  const pick = (provider: string) => {
    if (provider === '') return onChange(null);
    const p = providers.find((x) => x.provider === provider);
    const current = value ?? sectionFor(capability, providers);
    const next: Section = { ...current, provider, model: p?.default_model ?? p?.models[0] ?? '' };
    if (capability === 'tts') next['voice'] = p?.default_voice ?? p?.voices[0] ?? '';
    onChange(next);
  };
  return (
    <fieldset class="provider">
      <legend>{title}</legend>
      <Field label="Provider" help={chosen?.label}>
        {({ id, describedBy }) => (
          <select
            id={id}
            name={`${capability}-provider`}
            aria-describedby={describedBy}
            value={value?.provider ?? ''}
            onChange={(e) => pick(e.currentTarget.value)}
          >
            {noneLabel !== undefined && <option value="">{noneLabel}</option>}
            {providers.map((p) => (
              <option key={p.provider} value={p.provider}>
                {p.provider}
                {p.configured ? '' : ' (not configured)'}
              </option>
            ))}
          </select>
        )}
      </Field>
      {chosen !== undefined && !chosen.configured && (
        <p class="note note-warn">
          <Badge kind="warn">not configured here</Badge> {chosen.reason ?? 'no reason given'}
        </p>
      )}
      {value !== null && (
        <SectionFields capability={capability} chosen={chosen} value={value} onChange={onChange} listId={listId} />
      )}
    </fieldset>
  );
}

/** Model, voice and the capability's extra settings of a section that is set. */
function SectionFields(props: {
  capability: Capability;
  chosen: ProviderAvailability | undefined;
  value: Section;
  onChange: (s: Section) => void;
  listId: string;
}): JSX.Element {
  const { capability, chosen, value, onChange, listId } = props;
  return (
    <>
      <Field label="Model" help={chosen?.any_model ? 'Any model the server accepts; suggestions listed.' : undefined}>
        {({ id, describedBy }) =>
          chosen?.any_model === false ? (
            <select
              id={id}
              name={`${capability}-model`}
              aria-describedby={describedBy}
              value={value.model}
              onChange={(e) => onChange({ ...value, model: e.currentTarget.value })}
            >
              {chosen.models.map((m) => (
                <option key={m} value={m}>
                  {m}
                </option>
              ))}
            </select>
          ) : (
            <>
              <input
                id={id}
                name={`${capability}-model`}
                list={`${listId}-models`}
                aria-describedby={describedBy}
                required
                value={value.model}
                onInput={(e) => onChange({ ...value, model: e.currentTarget.value })}
              />
              <datalist id={`${listId}-models`}>
                {chosen?.models.map((m) => (
                  <option key={m} value={m} />
                ))}
              </datalist>
            </>
          )
        }
      </Field>
      {capability === 'tts' && (
        <Field label="Voice">
          {({ id }) =>
            chosen !== undefined && chosen.voices.length > 0 ? (
              <select
                id={id}
                name="tts-voice"
                value={String(value['voice'] ?? '')}
                onChange={(e) => onChange({ ...value, voice: e.currentTarget.value })}
              >
                {chosen.voices.map((v) => (
                  <option key={v} value={v}>
                    {v}
                  </option>
                ))}
              </select>
            ) : (
              <input
                id={id}
                name="tts-voice"
                value={String(value['voice'] ?? '')}
                onInput={(e) => onChange({ ...value, voice: e.currentTarget.value })}
              />
            )
          }
        </Field>
      )}
      {extras[capability].map(([name, label]) => (
        <Field key={name} label={label}>
          {({ id }) =>
            name === 'language' ? (
              <input
                id={id}
                name={`${capability}-${name}`}
                value={String(value[name] ?? '')}
                onInput={(e) =>
                  onChange({ ...value, [name]: e.currentTarget.value === '' ? null : e.currentTarget.value })
                }
              />
            ) : (
              <input
                id={id}
                name={`${capability}-${name}`}
                type="number"
                step="any"
                value={String(value[name] ?? '')}
                onInput={(e) =>
                  onChange({
                    ...value,
                    [name]: e.currentTarget.value === '' ? undefined : Number(e.currentTarget.value),
                  })
                }
              />
            )
          }
        </Field>
      ))}
    </>
  );
}
