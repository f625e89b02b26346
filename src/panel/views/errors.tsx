import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { api, query } from '../api/client.js';
import type { ErrorRecord, ErrorSummary } from '../api/types.js';
import { Link } from '../router.js';
import { Field, PageTitle } from '../ui/controls.js';
import { AgentFilter, SelectFilter, TextFilter, useFilters } from '../ui/filters.js';
import { ms, when, words } from '../ui/format.js';
import { Badge, Empty, ErrorNote, Loading, Success } from '../ui/status.js';
import { useApi } from '../ui/use-api.js';
import { AgentName } from '../ui/names.js';
import { usePages } from '../ui/use-pages.js';

/** Error records: filters, detail, resolve with a note. `?id=` opens one. */
export function ErrorsView(): JSX.Element {
  const [f, set] = useFilters(['agent_id', 'status', 'type', 'session_id', 'id']);
  const summary = useApi<ErrorSummary>('/admin/v1/errors/stats/summary');
  const list = usePages<ErrorRecord>(
    `/admin/v1/errors${query({ agent_id: f['agent_id'], status: f['status'], type: f['type'], session_id: f['session_id'], limit: 50 })}`,
  );
  const types = Object.keys(summary.data?.by_type ?? {});
  return (
    <>
      <PageTitle>Errors</PageTitle>
      {summary.data !== undefined && (
        <p>
          {summary.data.open} open, {summary.data.resolved} resolved, {summary.data.last_24h} in the last 24 hours.
        </p>
      )}
      {f['id'] !== '' && (
        <ErrorDetailById
          id={f['id']!}
          onChanged={() => {
            list.reload();
            summary.reload();
          }}
          onClose={() => set('id', '')}
        />
      )}
      <form class="filters" aria-label="Filters" onSubmit={(e) => e.preventDefault()}>
        <AgentFilter value={f['agent_id']!} onChange={(v) => set('agent_id', v)} />
        <SelectFilter
          label="Status"
          name="status"
          value={f['status']!}
          options={['open', 'resolved']}
          onChange={(v) => set('status', v)}
        />
        {types.length > 0 ? (
          <SelectFilter label="Type" name="type" value={f['type']!} options={types} onChange={(v) => set('type', v)} />
        ) : (
          <TextFilter label="Type" name="type" value={f['type']!} onChange={(v) => set('type', v)} />
        )}
        <TextFilter
          label="Session id"
          name="session_id"
          value={f['session_id']!}
          onChange={(v) => set('session_id', v)}
        />
      </form>
      {list.error !== undefined && <ErrorNote error={list.error} />}
      {list.items.length === 0 && list.loading && <Loading what="Loading errors" />}
      {list.items.length === 0 && !list.loading && list.error === undefined && <Empty>No errors match.</Empty>}
      {list.items.length > 0 && (
        <ul class="errors">
          {list.items.map((e) => (
            <ErrorItem key={`${e.id}-${e.status}`} record={e} onChanged={summary.reload} />
          ))}
        </ul>
      )}
      {list.more}
    </>
  );
}

function statusBadge(e: ErrorRecord): JSX.Element {
  return e.status === 'open' ? <Badge kind="bad">open</Badge> : <Badge kind="ok">resolved</Badge>;
}

/** One error in the list; resolving it updates it in place (it stays listed until the filters change). */
function ErrorItem(props: { record: ErrorRecord; onChanged: () => void }): JSX.Element {
  const [record, setRecord] = useState(props.record);
  const [open, setOpen] = useState(false);
  const detailId = `detail-${record.id}`;
  const resolved = (r: ErrorRecord) => {
    setRecord(r);
    props.onChanged();
  };
  return (
    <li class="error-item" data-error={record.id}>
      <div class="row">
        {statusBadge(record)}
        <strong>{words(record.type)}</strong>
        <span class="muted">{when(record.created_at)}</span>
        {record.agent_id !== null && <AgentName id={record.agent_id} />}
        <button type="button" aria-expanded={open} aria-controls={detailId} onClick={() => setOpen(!open)}>
          {open ? 'Hide details' : 'Details'}
        </button>
      </div>
      <p>{record.message}</p>
      {open && (
        <div id={detailId}>
          <ErrorDetail record={record} onResolved={resolved} />
        </div>
      )}
    </li>
  );
}

function ErrorDetailById(props: { id: string; onChanged: () => void; onClose: () => void }): JSX.Element {
  const rec = useApi<ErrorRecord>(`/admin/v1/errors/${props.id}`);
  const [updated, setUpdated] = useState<ErrorRecord | undefined>(undefined);
  const shown = updated ?? rec.data;
  return (
    <section class="panel" aria-label="Selected error">
      <h2>Error {props.id}</h2>
      {rec.error !== undefined && <ErrorNote error={rec.error} />}
      {shown === undefined && rec.loading && <Loading />}
      {shown !== undefined && (
        <>
          <p>
            {statusBadge(shown)} <strong>{words(shown.type)}</strong>: {shown.message}
          </p>
          <ErrorDetail
            record={shown}
            onResolved={(r) => {
              setUpdated(r);
              props.onChanged();
            }}
          />
        </>
      )}
      <button type="button" onClick={props.onClose}>
        Close
      </button>
    </section>
  );
}

function ErrorDetail({ record, onResolved }: { record: ErrorRecord; onResolved: (r: ErrorRecord) => void }) {
  const [note, setNote] = useState('');
  const [error, setError] = useState<unknown>(undefined);
  const [busy, setBusy] = useState(false);
  const resolve = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      onResolved(
        await api<ErrorRecord>(`/admin/v1/errors/${record.id}/resolve`, {
          method: 'POST',
          body: note.trim() === '' ? {} : { note: note.trim() },
        }),
      );
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const r = record;
  return (
    <div class="error-detail">
      <dl class="facts">
        <dt>Id</dt>
        <dd>{r.id}</dd>
        <dt>Agent</dt>
        <dd>{r.agent_id === null ? '—' : <AgentName id={r.agent_id} />}</dd>
        <dt>Session</dt>
        <dd>
          {r.session_id === null ? '—' : <Link href={`/sessions?session_id=${r.session_id}`}>{r.session_id}</Link>}
        </dd>
        <dt>Upstream status</dt>
        <dd>{r.status_code ?? '—'}</dd>
        <dt>Latency</dt>
        <dd>{ms(r.latency_ms)}</dd>
        {r.status === 'resolved' && (
          <>
            <dt>Resolved</dt>
            <dd>
              {when(r.resolved_at)}
              {r.resolution_note !== null && `: ${r.resolution_note}`}
            </dd>
          </>
        )}
      </dl>
      {Object.keys(r.details).length > 0 && (
        <pre class="json" tabIndex={0} role="region" aria-label={`Details of error ${r.id}`}>
          {JSON.stringify(r.details, null, 2)}
        </pre>
      )}
      {r.status === 'open' ? (
        <form class="row" onSubmit={(e) => void resolve(e)}>
          <Field label="Resolution note (optional)">
            {({ id }) => (
              <input
                id={id}
                name="note"
                maxLength={2000}
                value={note}
                onInput={(e) => setNote(e.currentTarget.value)}
              />
            )}
          </Field>
          <button type="submit" class="primary" disabled={busy}>
            Resolve
          </button>
        </form>
      ) : (
        <Success>Resolved.</Success>
      )}
      {error !== undefined && <ErrorNote error={error} prefix="Not resolved" />}
    </div>
  );
}
