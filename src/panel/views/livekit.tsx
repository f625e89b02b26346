import { Fragment, type JSX } from 'preact';
import { ApiError } from '../api/client.js';
import { PageTitle } from '../ui/controls.js';
import { Empty, ErrorNote, Loading } from '../ui/status.js';
import { useApi, useInterval } from '../ui/use-api.js';

/** LiveKit rooms and the agent worker's status, when this server has LiveKit configured. */
export function LiveKitView(): JSX.Element {
  const rooms = useApi<unknown>('/admin/v1/livekit/rooms');
  const worker = useApi<unknown>('/admin/v1/livekit/worker-status');
  useInterval(() => [rooms, worker].forEach((r) => r.reload()), 10_000, rooms.error === undefined);
  const unavailable = [rooms.error, worker.error].find(
    (e) => e instanceof ApiError && (e.status === 503 || e.status === 404),
  );
  return (
    <>
      <PageTitle>LiveKit</PageTitle>
      {unavailable instanceof ApiError && unavailable.status === 503 && unavailable.code === 'livekit_unavailable' ? (
        <div class="note" role="status">
          <strong>LiveKit not configured.</strong> Set LIVEKIT_URL, LIVEKIT_API_KEY and LIVEKIT_API_SECRET on the server
          to run voice sessions in LiveKit rooms. ({unavailable.message})
        </div>
      ) : unavailable instanceof ApiError && unavailable.status === 404 ? (
        <div class="note" role="status">
          <strong>This server has no LiveKit endpoints.</strong> Its version does not include the LiveKit admin API
          (/admin/v1/livekit/rooms answered 404).
        </div>
      ) : (
        <>
          <section>
            <h2>Rooms</h2>
            {rooms.error !== undefined && <ErrorNote error={rooms.error} />}
            {rooms.data === undefined && rooms.loading && <Loading what="Loading rooms" />}
            {rooms.data !== undefined && <Records value={rooms.data} empty="No active rooms." />}
          </section>
          <section>
            <h2>Agent worker</h2>
            {worker.error !== undefined && <ErrorNote error={worker.error} />}
            {worker.data === undefined && worker.loading && <Loading what="Loading the worker status" />}
            {worker.data !== undefined && <Records value={worker.data} empty="No worker status." />}
          </section>
        </>
      )}
    </>
  );
}

function text(v: unknown): string {
  if (v === null || v === undefined) return '—';
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}

/** A `{data: [...]}` page as a table, any other object as a list of its fields. */
function Records({ value, empty }: { value: unknown; empty: string }): JSX.Element {
  const rows = Array.isArray(value) ? value : (value as { data?: unknown }).data;
  if (Array.isArray(rows)) {
    if (rows.length === 0) return <Empty>{empty}</Empty>;
    const columns = Object.keys((rows[0] ?? {}) as object);
    return (
      <div class="table-wrap">
        <table>
          <thead>
            <tr>
              {columns.map((c) => (
                <th key={c} scope="col">
                  {c.replace(/_/g, ' ')}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((r, i) => (
              <tr key={i}>
                {columns.map((c) => (
                  <td key={c}>{text((r as Record<string, unknown>)[c])}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    );
  }
  return (
    <dl class="facts">
      {Object.entries(value as object).map(([k, v]) => (
        <Fragment key={k}>
          <dt>{k.replace(/_/g, ' ')}</dt>
          <dd>{text(v)}</dd>
        </Fragment>
      ))}
    </dl>
  );
}
