import { entryArg, type OutboxEntry } from '../../schemas/outbox-entry.js';
import { AppError, NotFoundError } from '../../errors/app-errors.js';
import type {
  ConversationAnalysis,
  Conversation,
  Message,
  MessageCreate,
  MessageStatus,
} from '../../schemas/conversation.js';
import type { Session } from '../../schemas/session.js';
import { loadHashes } from '../hashes.js';
import { BoundedCache } from '../../primitives/bounded-cache.js';
import type { Keys } from '../keys.js';
import { decodeCursor, matchesFields, pageByScore, type Page, type PageQuery } from '../pagination.js';
import type { Redis } from '../redis.js';
import { Script } from '../scripts.js';
import {
  decodePosition,
  encodePosition,
  fromHash,
  newMessage,
  type StoredConversation,
  type StoredConversationWithMessages,
} from './conversation-records.js';

const recordMessage = new Script('record_message');
const recordPlayback = new Script('record_playback');
const recordAnalysis = new Script('record_analysis');

/** What storing a message does to its session beside it: nothing, last activity now, or a counted turn. */
export type SessionActivity = 'none' | 'touch' | 'turn';

/** The session-side effects of `record`, written in the same step as the message. */
export interface MessageEffects {
  activity: SessionActivity;
  /** Added to the agent's response_ms_sum with a turn. */
  responseMs?: number | undefined;
  /** The event announcing the message, written into the outbox with it. */
  event?: OutboxEntry | null | undefined;
}

/** A voice answer's playback outcome, for `recordPlayback`. */
export interface PlaybackOutcome {
  status: MessageStatus;
  text: string;
  timings: Record<string, number>;
  event?: OutboxEntry | null | undefined;
}

export interface ConversationFilter {
  agent_id?: string | undefined;
  session_id?: string | undefined;
  user_id?: string | undefined;
}

export interface MessagesQuery {
  /** At most this many messages (default and maximum 500). */
  limit?: number | undefined;
  /** A `messages_cursor` from an earlier read: only messages older than those it returned. */
  before?: string | undefined;
}

export const maxMessagesPerRead = 500;

/**
 * Conversations (one per session, created by SessionRepository.create) and their messages. The
 * conversation is a hash; its messages an append-only list of JSON, in the order they were said.
 */
export class ConversationRepository {
  private readonly agentOf = new BoundedCache<string>();

  constructor(
    private readonly redis: Redis,
    private readonly keys: Keys,
  ) {}

  async get(id: string): Promise<StoredConversation> {
    const h = await this.redis.hGetAll(this.keys.conversation(id));
    if (Object.keys(h).length === 0) throw new NotFoundError('conversation', id);
    return fromHash({ ...h });
  }

  /** The conversation with its latest `limit` messages (before the cursor), oldest first. */
  async getWithMessages(id: string, query: MessagesQuery = {}): Promise<StoredConversationWithMessages> {
    const limit = Math.min(Math.max(1, query.limit ?? maxMessagesPerRead), maxMessagesPerRead);
    const conversation = await this.get(id);
    const end = Math.min(
      query.before === undefined ? conversation.message_count : decodePosition(query.before),
      conversation.message_count,
    );
    const start = Math.max(0, end - limit);
    const raw = end === 0 ? [] : await this.redis.lRange(this.keys.conversationMessages(id), start, end - 1);
    return {
      ...conversation,
      messages: raw.map((m) => JSON.parse(m) as Message),
      messages_cursor: start > 0 ? encodePosition(start) : null,
    };
  }

  /** Newest first. `session_id` is a direct lookup (a session has one conversation). */
  async list(query: PageQuery, filter: ConversationFilter = {}): Promise<Page<StoredConversation>> {
    const keep = matchesFields<StoredConversation>(filter);
    if (filter.session_id !== undefined) return this.ofSession(filter.session_id, query, keep);
    const index =
      filter.agent_id === undefined ? this.keys.conversationIndex() : this.keys.agentConversations(filter.agent_id);
    return pageByScore<StoredConversation>(
      this.redis,
      index,
      query,
      (ids) =>
        loadHashes(
          this.redis,
          ids.map((id) => this.keys.conversation(id)),
          fromHash,
        ),
      keep,
    );
  }

  /**
   * Appends a message; message_count, updated_at, last_message_at and the agent's messages_user or
   * messages_agent counter change with it, atomically. 404 when the conversation does not exist.
   */
  async appendMessage(conversationId: string, input: MessageCreate, now: number = Date.now()): Promise<Message> {
    const agentId = await this.agentOfConversation(conversationId);
    const message = newMessage(conversationId, input, Math.round(now));
    await this.write(message, { agentId, sessionId: null, type: 'chat' }, { activity: 'none' });
    return message;
  }

  /**
   * Stores a message of the session's conversation (built by the caller, so its id is known
   * before the write) together with the session's activity, the agent's counters and the event
   * announcing it, in one atomic step. Writing a message that is already stored changes nothing,
   * so a retried write is safe. 404 when the conversation does not exist.
   */
  async record(session: Session, message: Message, effects: MessageEffects): Promise<void> {
    await this.write(message, { agentId: session.agent_id, sessionId: session.id, type: session.type }, effects);
  }

  /**
   * A voice answer's playback ended: the stored message gets its final status, spoken text and
   * completed timings, an interruption counts in the agent's stats, and `audio_ready` goes into
   * the outbox, atomically. False when the message is not among the conversation's newest ones.
   */
  async recordPlayback(session: Session, messageId: string, outcome: PlaybackOutcome): Promise<boolean> {
    const reply = await recordPlayback.run(
      this.redis,
      [
        this.keys.conversationMessages(session.conversation_id),
        this.keys.agentStats(session.agent_id),
        this.keys.eventOutbox(),
        this.keys.conversationPlayed(session.conversation_id),
      ],
      [
        messageId,
        outcome.status,
        outcome.text,
        JSON.stringify(outcome.timings),
        Date.now(),
        entryArg(outcome.event ?? null),
      ],
    );
    return reply !== 'missing';
  }

  /**
   * Stores the conversation's post-call analysis and the event announcing it (`analysis_ready`),
   * atomically, once: false when it was already stored (nothing written). 404 when the
   * conversation does not exist.
   */
  async recordAnalysis(
    conversationId: string,
    analysis: ConversationAnalysis,
    event: OutboxEntry | null,
  ): Promise<boolean> {
    const reply = await recordAnalysis.run(
      this.redis,
      [this.keys.conversation(conversationId), this.keys.eventOutbox()],
      [JSON.stringify(analysis), entryArg(event)],
    );
    if (reply === 'missing') throw new NotFoundError('conversation', conversationId);
    return reply === 'ok';
  }

  private async write(
    message: Message,
    owner: { agentId: string; sessionId: string | null; type: Session['type'] },
    effects: MessageEffects,
  ): Promise<void> {
    const k = this.keys;
    const now = Date.parse(message.created_at);
    // With no session (a bare append), the session keys are placeholders the script leaves alone.
    const sessionId = owner.sessionId ?? '';
    const reply = await recordMessage.run(
      this.redis,
      [
        k.conversation(message.conversation_id),
        k.conversationMessages(message.conversation_id),
        k.agentStats(owner.agentId),
        k.session(sessionId),
        k.sessionsActive(),
        k.agentActiveSessions(owner.agentId),
        k.sessionStats(),
        k.sessionsActiveOfType(owner.type),
        k.eventOutbox(),
      ],
      [
        JSON.stringify(message),
        message.id,
        message.role,
        now,
        message.created_at,
        owner.sessionId === null ? 'none' : effects.activity,
        Math.round(effects.responseMs ?? 0),
        entryArg(effects.event ?? null),
        message.role === 'agent' && message.status === 'interrupted' ? '1' : '0',
      ],
    );
    if (reply === 'missing') throw new NotFoundError('conversation', message.conversation_id);
    if (reply !== 'ok' && reply !== 'duplicate')
      throw new AppError(500, 'internal_error', `record_message replied ${String(reply)}`);
  }

  /** A conversation's agent never changes; cached, it costs no round trip after the first message. */
  private async agentOfConversation(conversationId: string): Promise<string> {
    const agentId = await this.agentOf.getOrLoad(
      conversationId,
      async () => (await this.redis.hGet(this.keys.conversation(conversationId), 'agent_id')) ?? undefined,
    );
    if (agentId === undefined) throw new NotFoundError('conversation', conversationId);
    return agentId;
  }

  /**
   * Deletes a conversation and its messages. The index entries go first (each on its own slot), the
   * conversation's keys last, so a delete cut short is finished by trying again.
   */
  async delete(conversation: Pick<Conversation, 'id' | 'agent_id'>): Promise<void> {
    const { id } = conversation;
    await this.redis.zRem(this.keys.agentConversations(conversation.agent_id), id);
    await this.redis.zRem(this.keys.conversationIndex(), id);
    await this.redis.del([
      this.keys.conversation(id),
      this.keys.conversationMessages(id),
      this.keys.conversationPlayed(id),
    ]);
    this.agentOf.delete(id);
  }

  /** The last `n` messages, oldest first (history for the language model). */
  async recent(conversationId: string, n: number): Promise<Message[]> {
    if (n <= 0) return [];
    const raw = await this.redis.lRange(this.keys.conversationMessages(conversationId), -n, -1);
    return raw.map((m) => JSON.parse(m) as Message);
  }

  private async ofSession(
    sessionId: string,
    query: PageQuery,
    keep: (c: StoredConversation) => boolean,
  ): Promise<Page<StoredConversation>> {
    if (query.cursor !== undefined) {
      decodeCursor(query.cursor); // 400 on junk, like every list
      return { data: [], next_cursor: null };
    }
    const conversationId = await this.redis.hGet(this.keys.session(sessionId), 'conversation_id');
    if (conversationId === null || conversationId === undefined) return { data: [], next_cursor: null };
    const [conversation] = await loadHashes(this.redis, [this.keys.conversation(conversationId)], fromHash);
    if (conversation === null || conversation === undefined) return { data: [], next_cursor: null };
    const created = Date.parse(conversation.created_at);
    const inRange =
      (query.from === undefined || created >= query.from) && (query.to === undefined || created <= query.to);
    return { data: inRange && keep(conversation) ? [conversation] : [], next_cursor: null };
  }
}
