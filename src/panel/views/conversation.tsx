import type { JSX } from 'preact';
import { useRef, useState } from 'preact/hooks';
import type { ConversationWithMessages, Message } from '../api/types.js';
import { Link } from '../router.js';
import { PageTitle } from '../ui/controls.js';
import { when } from '../ui/format.js';
import { Badge, Empty, ErrorNote, Loading } from '../ui/status.js';
import { AgentName } from '../ui/names.js';
import { useApi } from '../ui/use-api.js';
import { TimingBar, TimingLegend, barTotal } from './timing-bar.js';
import { RecordingPlayer, seekSeconds, useRecording } from './recording-player.js';

/**
 * A conversation's transcript; each agent turn with its timings drawn as a bar; the call's
 * recording above it when there is one, each message a place to play it from.
 */
export function ConversationView({ id }: { id: string }): JSX.Element {
  const conv = useApi<ConversationWithMessages>(`/admin/v1/conversations/${id}`);
  const c = conv.data;
  // asked for only when the record says there is one: a call not recorded costs no request (and no 404)
  const recording = useRecording(c !== undefined && c.recording !== null ? id : null);
  const audio = useRef<HTMLAudioElement>(null);
  const [playError, setPlayError] = useState<unknown>(undefined);
  const rec = recording.recording;
  const playFrom = (m: Message): (() => void) | undefined => {
    const at = rec == null ? null : seekSeconds(rec, m);
    if (at === null) return undefined;
    return () => {
      const player = audio.current;
      if (player === null) return;
      player.currentTime = at;
      setPlayError(undefined);
      player.play().catch((err: unknown) => setPlayError(err));
    };
  };
  const scale = Math.max(1, ...(c?.messages.map((m) => (m.timings === null ? 0 : barTotal(m.timings))) ?? []));
  return (
    <>
      <p class="crumbs">
        <Link href="/conversations">Conversations</Link> /
      </p>
      <PageTitle>Conversation</PageTitle>
      {conv.error !== undefined && <ErrorNote error={conv.error} />}
      {c === undefined && conv.loading && <Loading what="Loading the conversation" />}
      {c !== undefined && (
        <>
          <dl class="facts">
            <dt>Agent</dt>
            <dd>
              <AgentName id={c.agent_id} />
            </dd>
            <dt>Session</dt>
            <dd>
              <Link href={`/sessions?session_id=${c.session_id}`}>{c.session_id}</Link>
            </dd>
            <dt>User</dt>
            <dd>{c.user_id ?? '—'}</dd>
            <dt>Started</dt>
            <dd>{when(c.created_at)}</dd>
          </dl>
          <RecordingPlayer state={recording} audio={audio} />
          {playError !== undefined && <ErrorNote error={playError} prefix="The recording could not be played" />}
          {c.messages_cursor !== null && <p class="help">Showing the latest {c.messages.length} messages.</p>}
          {c.messages.some((m) => m.timings !== null) && <TimingLegend />}
          {c.messages.length === 0 ? (
            <Empty>No messages yet.</Empty>
          ) : (
            <ol class="transcript">
              {c.messages.map((m) => (
                <Turn key={m.id} m={m} scale={scale} play={playFrom(m)} />
              ))}
            </ol>
          )}
        </>
      )}
    </>
  );
}

function Turn({ m, scale, play }: { m: Message; scale: number; play: (() => void) | undefined }): JSX.Element {
  return (
    <li class={`msg msg-${m.role} msg-${m.status}`}>
      <div class="msg-head">
        <strong>{m.role === 'user' ? 'User' : m.role === 'tool' ? `Tool ${m.tool_call?.name ?? ''}` : 'Agent'}</strong>{' '}
        <span class="muted">{when(m.created_at)}</span>{' '}
        {m.status === 'interrupted' && <Badge kind="warn">interrupted</Badge>}
        {m.status === 'failed' && <Badge kind="bad">failed</Badge>}
        {play !== undefined && (
          <button type="button" class="play-from" onClick={play} aria-label="Play the recording from this message">
            ▶ Play from here
          </button>
        )}
      </div>
      <p class="msg-text">{m.text === '' ? <span class="muted">(no text)</span> : m.text}</p>
      {m.error_id !== null && (
        <p>
          <Link href={`/errors?id=${m.error_id}`}>Why it failed: error {m.error_id}</Link>
        </p>
      )}
      {m.timings !== null && <TimingBar timings={m.timings} scale={scale} />}
    </li>
  );
}
