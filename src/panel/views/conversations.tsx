import type { JSX } from 'preact';
import { query } from '../api/client.js';
import type { Conversation } from '../api/types.js';
import { Link } from '../router.js';
import { PageTitle } from '../ui/controls.js';
import { AgentFilter, TextFilter, dayBound, useFilters } from '../ui/filters.js';
import { when } from '../ui/format.js';
import { Empty, ErrorNote, Loading } from '../ui/status.js';
import { AgentName } from '../ui/names.js';
import { ScrollRegion } from '../ui/scroll-region.js';
import { usePages } from '../ui/use-pages.js';

export function ConversationsView(): JSX.Element {
  const [f, set] = useFilters(['agent_id', 'user_id', 'from', 'to']);
  const list = usePages<Conversation>(
    `/admin/v1/conversations${query({
      agent_id: f['agent_id'],
      user_id: f['user_id'],
      from: dayBound(f['from']!, false),
      to: dayBound(f['to']!, true),
      limit: 50,
    })}`,
  );
  return (
    <>
      <PageTitle>Conversations</PageTitle>
      <form class="filters" aria-label="Filters" onSubmit={(e) => e.preventDefault()}>
        <AgentFilter value={f['agent_id']!} onChange={(v) => set('agent_id', v)} />
        <TextFilter label="User id" name="user_id" value={f['user_id']!} onChange={(v) => set('user_id', v)} />
        <TextFilter label="From day" name="from" type="date" value={f['from']!} onChange={(v) => set('from', v)} />
        <TextFilter label="To day" name="to" type="date" value={f['to']!} onChange={(v) => set('to', v)} />
      </form>
      {list.error !== undefined && <ErrorNote error={list.error} />}
      {list.items.length === 0 && list.loading && <Loading what="Loading conversations" />}
      {list.items.length === 0 && !list.loading && list.error === undefined && <Empty>No conversations match.</Empty>}
      {list.items.length > 0 && (
        <ScrollRegion label="Conversations">
          <table>
            <thead>
              <tr>
                <th scope="col">Conversation</th>
                <th scope="col">Agent</th>
                <th scope="col">User</th>
                <th scope="col">Messages</th>
                <th scope="col">Last message</th>
              </tr>
            </thead>
            <tbody>
              {list.items.map((c) => (
                <tr key={c.id}>
                  <td>
                    <Link href={`/conversations/${c.id}`}>{when(c.created_at)}</Link>
                  </td>
                  <td>
                    <AgentName id={c.agent_id} />
                  </td>
                  <td>{c.user_id ?? '—'}</td>
                  <td>{c.message_count}</td>
                  <td>{when(c.last_message_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>
      )}
      {list.more}
    </>
  );
}
