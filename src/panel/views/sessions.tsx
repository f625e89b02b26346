import type { JSX } from 'preact';
import { query } from '../api/client.js';
import type { Session } from '../api/types.js';
import { Link } from '../router.js';
import { PageTitle } from '../ui/controls.js';
import { AgentFilter, SelectFilter, TextFilter, dayBound, useFilters } from '../ui/filters.js';
import { duration, when, words } from '../ui/format.js';
import { Badge, Empty, ErrorNote, Loading } from '../ui/status.js';
import { useApi, useInterval } from '../ui/use-api.js';
import { AgentName } from '../ui/names.js';
import { ScrollRegion } from '../ui/scroll-region.js';
import { usePages } from '../ui/use-pages.js';

/** Live and past sessions with their end reasons; live ones refresh every 5 s. */
export function SessionsView(): JSX.Element {
  const [f, set] = useFilters(['agent_id', 'status', 'type', 'user_id', 'from', 'session_id']);
  const list = usePages<Session>(
    `/admin/v1/sessions${query({
      agent_id: f['agent_id'],
      status: f['status'],
      type: f['type'],
      user_id: f['user_id'],
      from: dayBound(f['from']!, false),
      limit: 50,
    })}`,
  );
  useInterval(list.reload, 5000, f['session_id'] === '' && list.items.some((s) => s.status === 'active'));
  return (
    <>
      <PageTitle>Sessions</PageTitle>
      {f['session_id'] !== '' && <OneSession id={f['session_id']!} onClose={() => set('session_id', '')} />}
      <form class="filters" aria-label="Filters" onSubmit={(e) => e.preventDefault()}>
        <AgentFilter value={f['agent_id']!} onChange={(v) => set('agent_id', v)} />
        <SelectFilter
          label="Status"
          name="status"
          value={f['status']!}
          options={['active', 'ended']}
          onChange={(v) => set('status', v)}
        />
        <SelectFilter
          label="Type"
          name="type"
          value={f['type']!}
          options={['chat', 'voice']}
          onChange={(v) => set('type', v)}
        />
        <TextFilter label="User id" name="user_id" value={f['user_id']!} onChange={(v) => set('user_id', v)} />
        <TextFilter label="From day" name="from" type="date" value={f['from']!} onChange={(v) => set('from', v)} />
      </form>
      {list.error !== undefined && <ErrorNote error={list.error} />}
      {list.items.length === 0 && list.loading && <Loading what="Loading sessions" />}
      {list.items.length === 0 && !list.loading && list.error === undefined && <Empty>No sessions match.</Empty>}
      {list.items.length > 0 && <SessionTable sessions={list.items} />}
      {list.more}
    </>
  );
}

function OneSession({ id, onClose }: { id: string; onClose: () => void }): JSX.Element {
  const s = useApi<Session>(`/admin/v1/sessions/${id}`);
  return (
    <section aria-label="Selected session" class="panel">
      <h2>Session {id}</h2>
      {s.error !== undefined && <ErrorNote error={s.error} />}
      {s.data === undefined && s.loading && <Loading />}
      {s.data !== undefined && <SessionTable sessions={[s.data]} />}
      <button type="button" onClick={onClose}>
        Show all sessions
      </button>
    </section>
  );
}

/** Who comes first (agent, user), so a phone shows them without scrolling the table. */
function SessionTable({ sessions }: { sessions: Session[] }): JSX.Element {
  return (
    <ScrollRegion label="Sessions">
      <table>
        <thead>
          <tr>
            <th scope="col">Started</th>
            <th scope="col">Agent</th>
            <th scope="col">User</th>
            <th scope="col">Status</th>
            <th scope="col">Type</th>
            <th scope="col">Turns</th>
            <th scope="col">Duration</th>
            <th scope="col">End reason</th>
          </tr>
        </thead>
        <tbody>
          {sessions.map((s) => (
            <tr key={s.id}>
              <td>
                <Link
                  href={`/conversations/${s.conversation_id}`}
                  aria-label={`Conversation of the session started ${when(s.started_at)}`}
                >
                  {when(s.started_at)}
                </Link>
              </td>
              <td>
                <AgentName id={s.agent_id} />
              </td>
              <td>{s.user_id ?? '—'}</td>
              <td>{s.status === 'active' ? <Badge kind="ok">live</Badge> : <Badge kind="info">ended</Badge>}</td>
              <td>{s.transport === s.type ? s.type : `${s.type} (${s.transport})`}</td>
              <td>{s.turns}</td>
              <td>{duration(s.duration_ms)}</td>
              <td>{s.end_reason === null ? '—' : words(s.end_reason)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollRegion>
  );
}
