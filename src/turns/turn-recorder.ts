import type { Logger } from 'pino';
import type { EventOutbox } from '../events/outbox.js';
import type { TurnObserver } from '../metrics/operator-metrics.js';
import type { StoredAgent } from '../records/agent.js';
import type { Message, MessageStatus } from '../records/conversation.js';
import type { Session, SessionEndReason } from '../records/session.js';
import type { Store } from '../store/store.js';

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
 * events that announce them (`llm_response`, `audio_ready`, `session_end`).
 */
export interface TurnRecorder {
  /** Stores the user's message. */
  user(session: Session, turn: UserTurn): Promise<void>;
  /**
   * Stores the agent's message, counts the turn (unless failed) and queues `llm_response` (not for
   * the greeting or a failed turn). Returns the stored message.
   */
  answered(agent: StoredAgent, session: Session, turn: AgentTurn): Promise<Message>;
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

export interface TurnRecorderDeps {
  store: Store;
  outbox: EventOutbox;
  logger: Logger;
  /** Turn counts and latency histograms (operator metrics), observed here so every turn counts once. */
  metrics?: TurnObserver | undefined;
}

/**
 * First cut over the existing repositories (not yet atomic with the events it queues): the
 * transactional outbox replaces its internals, callers keep this interface.
 */
export function createTurnRecorder({ store, outbox, metrics }: TurnRecorderDeps): TurnRecorder {
  return {
    async user(session, turn) {
      await store.conversations.appendMessage(session.conversation_id, {
        role: 'user',
        text: turn.text,
        timings: turn.timings ?? null,
      });
    },

    async answered(agent, session, turn) {
      const message = await store.conversations.appendMessage(session.conversation_id, {
        role: 'agent',
        text: turn.text,
        status: turn.status,
        timings: turn.timings,
        error_id: turn.errorId ?? null,
      });
      if (turn.source !== 'greeting') metrics?.turnAnswered(turn.channel, turn.status, turn.timings);
      if (turn.status === 'failed' || turn.source === 'greeting') {
        await store.sessions.touch(session.id);
        return message;
      }
      const responseMs = turn.timings['end_to_end_ms'] ?? turn.timings['response_ms'] ?? 0;
      await Promise.all([
        store.sessions.recordTurn(session.id),
        store.agents.bump(agent.id, { turns: 1, response_ms_sum: Math.round(responseMs), response_ms_count: 1 }),
      ]);
      outbox.emit(agent, 'llm_response', session.id, {
        transcript: turn.transcript,
        response: turn.text,
        source: turn.source,
        message_id: message.id,
        channel: turn.channel,
        interrupted: turn.status === 'interrupted',
        timings: turn.timings,
      });
      return message;
    },

    async played(agent, session, messageId, played) {
      metrics?.turnPlayed(played.timings);
      outbox.emit(agent, 'audio_ready', session.id, {
        message_id: messageId,
        turn: played.turn,
        interrupted: played.interrupted,
        duration_ms: Math.round(played.durationMs),
        first_audio_ms: played.timings['first_audio_ms'] ?? null,
      });
      if (played.interrupted) await store.agents.bump(agent.id, { interrupted_turns: 1 });
    },

    async ended(agent, sessionId, reason, data) {
      const ended = await store.sessions.end(sessionId, reason);
      if (ended === null) return null;
      outbox.emit(agent, 'session_end', ended.id, {
        reason,
        error: data.error,
        duration_ms: ended.duration_ms,
        turns: ended.turns,
        session_type: data.session_type,
      });
      return ended;
    },
  };
}
