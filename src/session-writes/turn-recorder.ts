import type { Logger } from 'pino';
import type { AsyncEventType } from '../schemas/event-types.js';
import type { EventOutbox } from '../events/outbox.js';
import { outboxEntry, type OutboxEntry } from '../schemas/outbox-entry.js';
import type { TurnObserver } from '../metrics/operator-metrics.js';
import type { StoredAgent } from '../schemas/agent.js';
import type { Message, MessageStatus } from '../schemas/conversation.js';
import type { Session, SessionCreate, SessionEndReason } from '../schemas/session.js';
import { newMessage } from '../store/repositories/conversation-records.js';
import type { Store } from '../store/store.js';
import type { ToolOutcome } from '../tools/toolbox.js';
import { analysisRequest } from '../schemas/analysis-request.js';
import { recordLost } from './record-lost.js';
import { SessionWrites } from './session-writes.js';

/** Milliseconds per stage of a turn (stt_ms, response_ms, first_audio_ms, end_to_end_ms, …). */
export type TurnTimings = Record<string, number>;

/** The user's side of a turn. */
export interface UserTurn {
  text: string;
  timings?: TurnTimings | null | undefined;
}

/** The agent's answer, as generated (or cut short, or failed). */
export interface AgentTurn {
  channel: 'chat' | 'voice';
  /** 0 is the greeting; user turns count from 1. */
  turn: number;
  /** The user's words this answers; null for the greeting. */
  transcript: string | null;
  /** The answer's text: for an interrupted answer, the part that was spoken. */
  text: string;
  status: MessageStatus;
  source: 'llm' | 'webhook' | 'greeting';
  /** The error record of a failed answer. */
  errorId?: string | null | undefined;
  timings: TurnTimings;
  /** How long the webhook or LLM took, sent as `latency_ms` in `llm_response` when given. */
  latencyMs?: number | undefined;
}

/** What playback of a voice answer came to, once it ended (played out, or cut by barge-in). */
export interface PlayedTurn {
  turn: number;
  /** True when barge-in cut the playback. */
  interrupted: boolean;
  /** The text actually spoken (the whole answer unless interrupted). */
  spokenText: string;
  /** Audio sent to the user, in ms. */
  durationMs: number;
  /** The turn's timings now complete (first_audio_ms, end_to_end_ms, …). */
  timings: TurnTimings;
}

/**
 * The one place that writes a conversation's turns for chat and voice alike: user messages, agent
 * messages (complete, interrupted, failed), their timings, the session and agent counters, and the
 * events that announce them (`llm_response`, `audio_ready`, `session_end`), and a session's
 * post-call analysis request with its end.
 *
 * Each record and the event announcing it are written in one atomic Redis step (a transactional
 * outbox the relay moves into the delivery queue), so a process killed at any point loses neither
 * alone. Agents without an events_url get the records and no outbox entries.
 *
 * Chat writes run at once and reject on failure (the HTTP request answers with the error). Writes
 * of voice sessions never reject: they run in call order per session, are retried while Redis is
 * unreachable (for PARLEY_RECORD_RETRY_MS after each was asked for), and are given up after that
 * with an error log and a `record_lost` error record; the promise then resolves (`ended`: with
 * null). A voice session may therefore fire them without awaiting; awaiting one waits at most that
 * long. The queue is the process's one `SessionWrites` (session-writes.ts).
 */
export interface TurnRecorder {
  /** Stores the user's message. */
  user(session: Session, turn: UserTurn): Promise<void>;
  /**
   * Stores the agent's message, counts the turn (unless failed) and queues `llm_response` (not for
   * the greeting or a failed turn). Returns the stored message.
   */
  answered(agent: StoredAgent, session: Session, turn: AgentTurn): Promise<Message>;
  /**
   * A tool call finished (answered, failed or aborted): stores it as a `tool` message and queues
   * `tool_call`, in one step. Returns the stored message.
   */
  toolCalled(
    agent: StoredAgent,
    session: Session,
    call: ToolOutcome,
    turn: { channel: 'chat' | 'voice'; turn: number | null },
  ): Promise<Message>;
  /** A voice answer's playback ended: final status, spoken text and timings; queues `audio_ready`. */
  played(agent: StoredAgent, session: Session, messageId: string, played: PlayedTurn): Promise<void>;
  /** Ends the session once and queues `session_end`; null when it had already ended. */
  ended(
    agent: StoredAgent,
    sessionId: string,
    reason: SessionEndReason,
    data: { error: string | null; session_type: 'chat' | 'voice' },
  ): Promise<Session | null>;
}

/** The recorder plus what the process around it needs: session creation and a bounded drain on shutdown. */
export interface SessionRecorder extends TurnRecorder {
  /** Creates the session (and its conversation) and its `session_start` event in one atomic step. */
  started(agent: StoredAgent, input: SessionCreate): Promise<Session>;
  /** The write queue of voice sessions, for a caller that queues a step of several writes itself. */
  readonly writes: SessionWrites;
  /**
   * The same writes for such a step, run inside it: a voice session's are retried and given up as
   * above but not queued again (they would wait behind the step that waits for them).
   */
  readonly inQueue: TurnRecorder;
  /** Waits for voice writes still queued or retrying, at most `timeoutMs`. */
  drain(timeoutMs: number): Promise<void>;
}

export interface TurnRecorderDeps {
  store: Store;
  outbox: EventOutbox;
  logger: Logger;
  /** How long a voice session's writes are retried while Redis is unreachable (default 30 s). */
  retryWindowMs?: number | undefined;
  /** Test hook: SIGKILL this process right after storing a record announced by this event. */
  crashAfter?: AsyncEventType | undefined;
  /** Turn counts and latency histograms (operator metrics), observed here so every turn counts once. */
  metrics?: TurnObserver | undefined;
  /** Post-call analysis: woken when a session end stored an analysis request (src/analysis). */
  analysis?: { requested(): void } | undefined;
}

export function createTurnRecorder(deps: TurnRecorderDeps): SessionRecorder {
  const { store, outbox, logger } = deps;
  const writes = new SessionWrites({ logger, windowMs: deps.retryWindowMs, onGiveUp: recordLost(store, logger) });

  /** After a record and its outbox entry are stored: the crash hook, then an immediate relay. */
  const stored = (event: OutboxEntry | null): void => {
    if (event === null) return;
    if (deps.crashAfter === event.envelope.type) process.kill(process.pid, 'SIGKILL');
    outbox.recorded();
  };

  const turns = (write: WriteRunner) => turnWrites(deps, write, stored);
  return {
    // Chat writes run now and may reject; voice writes are queued per session, retried, and never reject.
    ...turns((session, what, run) => (session.type === 'voice' ? writes.run(session.id, what, run) : run())),
    // The same, for a step already queued on `writes`: retried, not queued again.
    inQueue: turns((session, what, run) => (session.type === 'voice' ? writes.retrying(session.id, what, run) : run())),
    writes,

    async started(agent, input) {
      let event: OutboxEntry | null = null;
      const session = await store.sessions.create(input, Date.now(), (s) => {
        event = outboxEntry(agent, 'session_start', s.id, {
          session_type: s.type,
          transport: s.transport,
          user_id: s.user_id,
          conversation_id: s.conversation_id,
          ...(s.room === null ? {} : { room: s.room }),
          // A phone call's ids (call_sid, from, to); other sessions have none.
          ...(Object.keys(s.metadata).length === 0 ? {} : { metadata: s.metadata }),
        });
        return event;
      });
      stored(event);
      return session;
    },

    drain: (timeoutMs) => writes.drain(timeoutMs),
  };
}

/** Runs one store step: at once (chat), or on the session's write queue (voice). */
type WriteRunner = <T>(
  session: { id: string; type: 'chat' | 'voice' },
  what: string,
  run: () => Promise<T>,
) => Promise<T | undefined>;

/** The turn's records and their events, each stored by `write`; `stored` runs after each stored event. */
function turnWrites(
  deps: TurnRecorderDeps,
  write: WriteRunner,
  stored: (event: OutboxEntry | null) => void,
): TurnRecorder {
  const { store, logger } = deps;
  return {
    async user(session, turn) {
      const message = newMessage(session.conversation_id, {
        role: 'user',
        text: turn.text,
        timings: turn.timings ?? null,
      });
      await write(session, 'user message', () => store.conversations.record(session, message, { activity: 'touch' }));
    },

    async answered(agent, session, turn) {
      const message = newMessage(session.conversation_id, {
        role: 'agent',
        text: turn.text,
        status: turn.status,
        timings: turn.timings,
        error_id: turn.errorId ?? null,
      });
      if (turn.source !== 'greeting') deps.metrics?.turnAnswered(turn.channel, turn.status, turn.timings);
      const counted = turn.status !== 'failed' && turn.source !== 'greeting';
      const event = !counted
        ? null
        : outboxEntry(agent, 'llm_response', session.id, {
            transcript: turn.transcript,
            response: turn.text,
            source: turn.source,
            message_id: message.id,
            channel: turn.channel,
            turn: turn.turn,
            interrupted: turn.status === 'interrupted',
            timings: turn.timings,
            ...(turn.latencyMs === undefined ? {} : { latency_ms: turn.latencyMs }),
          });
      const responseMs = turn.timings['end_to_end_ms'] ?? turn.timings['response_ms'] ?? 0;
      await write(session, 'agent message', async () => {
        await store.conversations.record(session, message, {
          activity: counted ? 'turn' : 'touch',
          responseMs,
          event,
        });
        stored(event);
      });
      return message;
    },

    async toolCalled(agent, session, call, turn) {
      const message = newMessage(session.conversation_id, {
        role: 'tool',
        text: call.content,
        status: call.status,
        error_id: call.errorId,
        tool_call: call.record,
      });
      const { call_id, name, ...rest } = call.record;
      const event = outboxEntry(agent, 'tool_call', session.id, {
        message_id: message.id,
        call_id,
        tool: name,
        ...rest,
        status: call.status,
        error_id: call.errorId,
        channel: turn.channel,
        turn: turn.turn,
      });
      await write(session, 'tool call', async () => {
        await store.conversations.record(session, message, { activity: 'touch', event });
        stored(event);
      });
      return message;
    },

    async played(agent, session, messageId, played) {
      deps.metrics?.turnPlayed(played.timings);
      const event = outboxEntry(agent, 'audio_ready', session.id, {
        message_id: messageId,
        turn: played.turn,
        interrupted: played.interrupted,
        spoken_text: played.spokenText,
        duration_ms: Math.round(played.durationMs),
        first_audio_ms: played.timings['first_audio_ms'] ?? null,
      });
      await write(session, 'playback', async () => {
        const found = await store.conversations.recordPlayback(session, messageId, {
          status: played.interrupted ? 'interrupted' : 'complete',
          text: played.spokenText,
          timings: played.timings,
          event,
        });
        if (!found) logger.warn({ session_id: session.id, message_id: messageId }, 'played: no such agent message');
        else stored(event);
      });
    },

    async ended(agent, sessionId, reason, data) {
      const event = outboxEntry(agent, 'session_end', sessionId, {
        reason,
        error: data.error,
        duration_ms: null, // filled in by the script that ends the session
        turns: null,
        session_type: data.session_type,
      });
      // Agents with post-call analysis get its request written with the end, so it survives a crash.
      const analysis = agent.analysis?.enabled === true ? analysisRequest(agent.id, sessionId) : null;
      const ended = await write({ id: sessionId, type: data.session_type }, 'session end', async () => {
        const session = await store.sessions.end(sessionId, reason, Date.now(), event, analysis);
        if (session !== null) {
          stored(event);
          if (analysis !== null) deps.analysis?.requested();
        }
        return session;
      });
      return ended ?? null;
    },
  };
}
