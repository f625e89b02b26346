import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { api, query } from '../api/client.js';
import type { DocumentRecord, SearchHit } from '../api/types.js';
import { uploadFile } from '../api/upload.js';
import { ConfirmButton, Field } from '../ui/controls.js';
import { when } from '../ui/format.js';
import { Badge, Empty, ErrorNote, Loading, Success } from '../ui/status.js';
import { useInterval } from '../ui/use-api.js';
import { ScrollRegion } from '../ui/scroll-region.js';
import { usePages } from '../ui/use-pages.js';

const statusBadge = {
  ready: <Badge kind="ok">ready</Badge>,
  processing: <Badge kind="info">processing</Badge>,
  failed: <Badge kind="bad">failed</Badge>,
};

/** RAG documents of an agent: upload with progress, status (polled while processing), search, delete. */
export function Documents({ agentId, ragEnabled }: { agentId: string; ragEnabled: boolean }): JSX.Element {
  const path = `/admin/v1/agents/${agentId}/documents`;
  const docs = usePages<DocumentRecord>(`${path}?limit=50`);
  const [deleteError, setDeleteError] = useState<unknown>(undefined);
  useInterval(
    docs.reload,
    2000,
    docs.items.some((d) => d.status === 'processing'),
  );
  const remove = async (doc: DocumentRecord) => {
    setDeleteError(undefined);
    try {
      await api(`${path}/${doc.id}`, { method: 'DELETE' });
      docs.reload();
    } catch (err) {
      setDeleteError(err);
    }
  };
  return (
    <section>
      <h3>Documents</h3>
      {!ragEnabled && (
        <p class="help">RAG is off for this agent: documents are indexed but not used until “RAG enabled” is set.</p>
      )}
      <Upload path={path} onUploaded={docs.reload} />
      {docs.error !== undefined && <ErrorNote error={docs.error} />}
      {deleteError !== undefined && <ErrorNote error={deleteError} prefix="Not deleted" />}
      {docs.items.length === 0 && docs.loading && <Loading what="Loading documents" />}
      {docs.items.length === 0 && !docs.loading && docs.error === undefined && <Empty>No documents yet.</Empty>}
      {docs.items.length > 0 && (
        <ScrollRegion label="Documents">
          <table>
            <caption class="sr-only">Documents of this agent</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Status</th>
                <th scope="col">Chunks</th>
                <th scope="col">Size</th>
                <th scope="col">Uploaded</th>
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {docs.items.map((d) => (
                <tr key={d.id} data-document={d.name}>
                  <td>
                    {d.name} <span class="muted">({d.type})</span>
                  </td>
                  <td>
                    {statusBadge[d.status]}
                    {d.error !== null && <div class="muted">{d.error}</div>}
                  </td>
                  <td>{d.chunk_count}</td>
                  <td>{(d.size_bytes / 1024).toFixed(1)} KiB</td>
                  <td>{when(d.created_at)}</td>
                  <td>
                    <ConfirmButton
                      label={`Delete ${d.name}`}
                      question={`Delete the document “${d.name}” with its chunks and vectors?`}
                      confirmLabel="Delete the document"
                      onConfirm={() => remove(d)}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>
      )}
      {docs.more}
      <Search path={`${path}/search`} />
    </section>
  );
}

function Upload({ path, onUploaded }: { path: string; onUploaded: () => void }): JSX.Element {
  const [file, setFile] = useState<File | null>(null);
  const [progress, setProgress] = useState<number | null>(null);
  const [error, setError] = useState<unknown>(undefined);
  const [done, setDone] = useState<string | null>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    if (file === null) return;
    setError(undefined);
    setDone(null);
    setProgress(0);
    try {
      const doc = await uploadFile<DocumentRecord>(path, file, setProgress);
      setDone(`Uploaded ${doc.name}; it is being indexed.`);
      (e.target as HTMLFormElement).reset();
      setFile(null);
      onUploaded();
    } catch (err) {
      setError(err);
    } finally {
      setProgress(null);
    }
  };
  return (
    <form class="row upload" onSubmit={(e) => void submit(e)}>
      <Field label="Upload a document" help="Plain text, Markdown, HTML or PDF.">
        {({ id, describedBy }) => (
          <input
            id={id}
            type="file"
            name="file"
            accept=".txt,.md,.markdown,.html,.htm,.pdf,text/plain,text/markdown,text/html,application/pdf"
            aria-describedby={describedBy}
            onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)}
          />
        )}
      </Field>
      <button type="submit" disabled={file === null || progress !== null}>
        Upload
      </button>
      {progress !== null && (
        <label class="progress">
          Uploading: {Math.round(progress * 100)} %
          <progress max={1} value={progress} />
        </label>
      )}
      {done !== null && <Success>{done}</Success>}
      {error !== undefined && <ErrorNote error={error} prefix="Upload failed" />}
    </form>
  );
}

function Search({ path }: { path: string }): JSX.Element {
  const [q, setQ] = useState('');
  const [hits, setHits] = useState<SearchHit[] | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      setHits((await api<{ data: SearchHit[] }>(`${path}${query({ q, k: 5 })}`)).data);
    } catch (err) {
      setError(err);
      setHits(undefined);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="search">
      <h4>Search the documents</h4>
      <form class="row" role="search" onSubmit={(e) => void submit(e)}>
        <Field label="Query">
          {({ id }) => <input id={id} type="search" required value={q} onInput={(e) => setQ(e.currentTarget.value)} />}
        </Field>
        <button type="submit" disabled={busy || q.trim() === ''}>
          Search
        </button>
      </form>
      {error !== undefined && <ErrorNote error={error} />}
      {hits !== undefined && hits.length === 0 && <Empty>Nothing matched.</Empty>}
      {hits !== undefined && hits.length > 0 && (
        <ol class="hits">
          {hits.map((h) => (
            <li key={h.chunk_id}>
              <strong>{h.document_name}</strong> <span class="muted">score {h.score.toFixed(3)}</span>
              <p>{h.text}</p>
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}
