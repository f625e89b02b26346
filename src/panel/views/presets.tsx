import type { JSX } from 'preact';
import type { Preset } from '../api/types.js';
import { Link } from '../router.js';
import { PageTitle } from '../ui/controls.js';
import { when } from '../ui/format.js';
import { Empty, ErrorNote, Loading } from '../ui/status.js';
import { ScrollRegion } from '../ui/scroll-region.js';
import { usePages } from '../ui/use-pages.js';

export function PresetsView(): JSX.Element {
  const presets = usePages<Preset>('/admin/v1/presets?limit=50');
  return (
    <>
      <PageTitle>Presets</PageTitle>
      <p>
        A preset picks the speech-to-text, language-model, text-to-speech and embedding providers; agents point at one.{' '}
        <Link href="/presets/new" class="button primary">
          New preset
        </Link>
      </p>
      {presets.error !== undefined && <ErrorNote error={presets.error} />}
      {presets.items.length === 0 && presets.loading && <Loading what="Loading presets" />}
      {presets.items.length === 0 && !presets.loading && presets.error === undefined && (
        <Empty>No presets yet: agents use the built-in default.</Empty>
      )}
      {presets.items.length > 0 && (
        <ScrollRegion label="Presets">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">STT</th>
                <th scope="col">LLM</th>
                <th scope="col">TTS</th>
                <th scope="col">Agents</th>
                <th scope="col">Updated</th>
              </tr>
            </thead>
            <tbody>
              {presets.items.map((p) => (
                <tr key={p.id}>
                  <td>
                    <Link href={`/presets/${p.id}`}>{p.name}</Link>
                  </td>
                  <td>
                    {p.stt.provider} · {p.stt.model}
                  </td>
                  <td>
                    {p.llm.provider} · {p.llm.model}
                  </td>
                  <td>
                    {p.tts.provider} · {p.tts.voice}
                  </td>
                  <td>{p.agent_count}</td>
                  <td>{when(p.updated_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>
      )}
      {presets.more}
    </>
  );
}
