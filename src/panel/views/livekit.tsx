import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { ApiError, api } from '../api/client.js';
import type { LivekitRoom, LivekitWorkerStatus, Page } from '../api/types.js';
import { Link } from '../router.js';
import { Field, PageTitle } from '../ui/controls.js';
import { AgentFilter } from '../ui/filters.js';
import { duration, plural, when, words } from '../ui/format.js';
import { AgentName } from '../ui/names.js';
import { ScrollRegion } from '../ui/scroll-region.js';
import { Badge, Empty, ErrorNote, Loading, Success } from '../ui/status.js';
import { useApi, useInterval, type Resource } from '../ui/use-api.js';

/**
 * LiveKit rooms, the agent workers, and dispatching an agent to a room. worker-status answers with
 * or without LiveKit and says which, so rooms are only asked for where LiveKit is configured (no
 * 503 on every visit to a server without it).
 */
export function LiveKitView(): JSX.Element {
  const worker = useApi<LivekitWorkerStatus>('/admin/v1/livekit/worker-status');
  const configured = worker.data?.livekit.configured === true;
  const rooms = useApi<Page<LivekitRoom>>(configured ? '/admin/v1/livekit/rooms' : null);
  useInterval(() => {
    worker.reload();
    if (configured) rooms.reload();
  }, 10_000);
  const missing = worker.error instanceof ApiError && worker.error.status === 404;
  const unconfigured =
    worker.data?.livekit.configured === false ||
    (rooms.error instanceof ApiError && rooms.error.status === 503 && rooms.error.code === 'livekit_unavailable');
  return (
    <>
      <PageTitle>LiveKit</PageTitle>
      {missing ? (
        <div class="note" role="status">
          <strong>This server has no LiveKit endpoints.</strong> Its version does not include the LiveKit admin API
          (/admin/v1/livekit/worker-status answered 404 Not Found).
        </div>
      ) : (
        <>
          {unconfigured && (
            <div class="note" role="status">
              <strong>LiveKit not configured.</strong> Voice sessions use Parley's own WebSocket transport.
            </div>
          )}
          <Workers worker={worker} />
          {configured && !unconfigured && (
            <section>
              <h2>Rooms</h2>
              {rooms.error !== undefined && <ErrorNote error={rooms.error} />}
              {rooms.data === undefined && rooms.loading && <Loading what="Loading rooms" />}
              {rooms.data !== undefined && <Rooms rooms={rooms.data.data} />}
            </section>
          )}
          {configured && !unconfigured && <Dispatch onDone={rooms.reload} />}
        </>
      )}
    </>
  );
}

function Workers({ worker }: { worker: Resource<LivekitWorkerStatus> }): JSX.Element {
  const w = worker.data;
  return (
    <section>
      <h2>Agent workers</h2>
      {worker.error !== undefined && !(worker.error instanceof ApiError && worker.error.status === 404) && (
        <ErrorNote error={worker.error} />
      )}
      {w === undefined && worker.loading && <Loading what="Loading the worker status" />}
      {w !== undefined && (
        <>
          <p>{w.livekit.message}</p>
          <p>
            {plural(w.totals.instances, 'instance')}, {w.totals.registered} registered with LiveKit,{' '}
            {plural(w.totals.sessions, 'live voice session')} of {w.totals.capacity} capacity.
          </p>
          {w.instances.length === 0 ? (
            <Empty>No Parley instance has reported a heartbeat.</Empty>
          ) : (
            <ScrollRegion label="Agent workers">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Instance</th>
                    <th scope="col">LiveKit worker</th>
                    <th scope="col">Jobs</th>
                    <th scope="col">Sessions (LiveKit / WebSocket)</th>
                    <th scope="col">Load</th>
                    <th scope="col">Last heartbeat</th>
                  </tr>
                </thead>
                <tbody>
                  {w.instances.map((i) => (
                    <tr key={i.instance_id}>
                      <td>
                        {i.instance_id} <span class="muted">v{i.version}</span>
                        {i.draining && <Badge kind="warn">draining</Badge>}
                        <div class="muted">
                          server {i.server_id}
                          {i.http_url !== null && ` · ${i.http_url}`}
                        </div>
                      </td>
                      <td>
                        {i.livekit.state === 'registered' ? (
                          <Badge kind="ok">registered</Badge>
                        ) : (
                          <Badge kind={i.livekit.state === 'not_configured' ? 'info' : 'warn'}>
                            {words(i.livekit.state)}
                          </Badge>
                        )}
                        {i.livekit.reason !== null && <div class="muted">{i.livekit.reason}</div>}
                      </td>
                      <td>{i.livekit.jobs}</td>
                      <td>
                        {i.sessions.livekit} / {i.sessions.websocket}
                      </td>
                      <td>{Math.round(i.load * 100)} %</td>
                      <td>{when(i.last_heartbeat_at)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </ScrollRegion>
          )}
        </>
      )}
    </section>
  );
}

function Rooms({ rooms }: { rooms: LivekitRoom[] }): JSX.Element {
  if (rooms.length === 0) return <Empty>No active rooms.</Empty>;
  return (
    <ScrollRegion label="Rooms">
      <table>
        <thead>
          <tr>
            <th scope="col">Room</th>
            <th scope="col">Participants</th>
            <th scope="col">Open for</th>
            <th scope="col">Session</th>
            <th scope="col">Agent</th>
          </tr>
        </thead>
        <tbody>
          {rooms.map((r) => (
            <tr key={r.sid}>
              <td>{r.name}</td>
              <td>{r.num_participants}</td>
              <td>{duration(r.duration_ms)}</td>
              <td>
                {r.session === null ? (
                  '—'
                ) : (
                  <Link href={`/sessions?session_id=${r.session.id}`}>
                    {r.session.id} ({r.session.status}, {r.session.turns} turns)
                  </Link>
                )}
              </td>
              <td>{r.session === null ? '—' : <AgentName id={r.session.agent_id} />}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollRegion>
  );
}

function Dispatch({ onDone }: { onDone: () => void }): JSX.Element {
  const [agentId, setAgentId] = useState('');
  const [room, setRoom] = useState('');
  const [error, setError] = useState<unknown>(undefined);
  const [done, setDone] = useState<string | null>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    setError(undefined);
    setDone(null);
    try {
      const d = await api<{ dispatch_id: string; room: string }>('/admin/v1/livekit/dispatch', {
        method: 'POST',
        body: { agent_id: agentId, room },
      });
      setDone(`Dispatched to room ${d.room} (${d.dispatch_id}).`);
      onDone();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <section>
      <h2>Dispatch an agent to a room</h2>
      <form class="grid-form" onSubmit={(e) => void submit(e)}>
        <AgentFilter value={agentId} onChange={setAgentId} emptyLabel="Choose an agent" />
        <Field label="Room name" help="LiveKit creates the room when it does not exist.">
          {({ id, describedBy }) => (
            <input
              id={id}
              name="room"
              required
              aria-describedby={describedBy}
              value={room}
              onInput={(e) => setRoom(e.currentTarget.value)}
            />
          )}
        </Field>
        <div class="actions">
          <button type="submit" class="primary" disabled={agentId === '' || room.trim() === ''}>
            Dispatch
          </button>
        </div>
      </form>
      {done !== null && <Success>{done}</Success>}
      {error !== undefined && <ErrorNote error={error} prefix="Not dispatched" />}
    </section>
  );
}
