import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api/client.js';
import type { Preset, ProviderAvailability } from '../api/types.js';
import { Link, base, navigate } from '../router.js';
import { ConfirmButton, Field, PageTitle } from '../ui/controls.js';
import { ErrorNote, Loading, Success } from '../ui/status.js';
import { forgetNames } from '../ui/names.js';
import { useApi } from '../ui/use-api.js';
import { ProviderSection, sectionFor, type Capability, type Section } from './provider-section.js';

const capabilities: [Capability, string][] = [
  ['stt', 'Speech to text'],
  ['llm', 'Language model'],
  ['tts', 'Text to speech'],
  ['embeddings', 'Embeddings (RAG)'],
];

/** Create (`id` = `new`) or edit a preset, with pickers fed by GET /presets/available. */
export function PresetEditor({ id }: { id: string }): JSX.Element {
  const isNew = id === 'new';
  const preset = useApi<Preset>(isNew ? null : `/admin/v1/presets/${id}`);
  const available = useApi<{ data: ProviderAvailability[] }>('/admin/v1/presets/available');
  const title = isNew ? 'New preset' : (preset.data?.name ?? 'Preset');
  const ready = available.data !== undefined && (isNew || preset.data !== undefined);
  return (
    <>
      <p class="crumbs">
        <Link href="/presets">Presets</Link> /
      </p>
      <PageTitle>{title}</PageTitle>
      {preset.error !== undefined && <ErrorNote error={preset.error} />}
      {available.error !== undefined && <ErrorNote error={available.error} prefix="Providers could not be listed" />}
      {!ready && preset.error === undefined && available.error === undefined && <Loading what="Loading the preset" />}
      {ready && <PresetForm preset={preset.data} providers={available.data!.data} />}
    </>
  );
}

function PresetForm({ preset, providers }: { preset: Preset | undefined; providers: ProviderAvailability[] }) {
  const [name, setName] = useState(preset?.name ?? '');
  const [description, setDescription] = useState(preset?.description ?? '');
  const [sections, setSections] = useState<Record<Capability, Section | null>>(() => ({
    stt: sectionFor('stt', providers, preset?.stt),
    llm: sectionFor('llm', providers, preset?.llm),
    tts: sectionFor('tts', providers, preset?.tts),
    // Not set (null) unless chosen: the deployment's PARLEY_EMBEDDING_PROVIDER / PARLEY_EMBEDDING_MODEL.
    embeddings: preset?.embeddings == null ? null : sectionFor('embeddings', providers, preset.embeddings),
  }));
  const [error, setError] = useState<unknown>(undefined);
  const [saved, setSaved] = useState(false);
  const [busy, setBusy] = useState(false);
  useEffect(() => setSaved(false), [name, description, sections]);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const body = { name, description, ...sections };
      if (preset === undefined) {
        const created = await api<Preset>('/admin/v1/presets', { method: 'POST', body });
        forgetNames('presets');
        navigate(`${base}/presets/${created.id}`, true);
      } else {
        await api<Preset>(`/admin/v1/presets/${preset.id}`, { method: 'PATCH', body });
        forgetNames('presets');
        setSaved(true);
      }
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const remove = async () => {
    try {
      await api(`/admin/v1/presets/${preset!.id}`, { method: 'DELETE' });
      forgetNames('presets');
      navigate(`${base}/presets`);
    } catch (err) {
      setError(err);
    }
  };
  return (
    <form class="settings" onSubmit={(e) => void submit(e)}>
      <Field label="Name">
        {({ id }) => (
          <input id={id} name="name" required value={name} onInput={(e) => setName(e.currentTarget.value)} />
        )}
      </Field>
      <Field label="Description">
        {({ id }) => (
          <textarea
            id={id}
            name="description"
            rows={2}
            value={description}
            onInput={(e) => setDescription(e.currentTarget.value)}
          />
        )}
      </Field>
      {capabilities.map(([cap, title]) => (
        <ProviderSection
          key={cap}
          capability={cap}
          title={title}
          providers={providers.filter((p) => p.capability === cap)}
          value={sections[cap]}
          onChange={(s) => setSections((old) => ({ ...old, [cap]: s }))}
          noneLabel={cap === 'embeddings' ? 'Deployment default' : undefined}
        />
      ))}
      <div class="actions row">
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Saving…' : preset === undefined ? 'Create preset' : 'Save preset'}
        </button>
        {preset !== undefined && (
          <ConfirmButton
            label="Delete preset"
            question={`Delete the preset “${preset.name}”? It is refused while agents use it.`}
            confirmLabel="Delete the preset"
            onConfirm={remove}
          />
        )}
      </div>
      {saved && <Success>Preset saved.</Success>}
      {error !== undefined && <ErrorNote error={error} prefix="Not saved" />}
    </form>
  );
}
