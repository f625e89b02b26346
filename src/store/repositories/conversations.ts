import { isoNow } from '../../clock.js';
import { AppError, NotFoundError, ValidationError } from '../../errors.js';
import { newId } from '../../ids.js';
import type { Conversation, ConversationWithMessages, Message, MessageCreate } from '../../records/conversation.js';
import { int, loadHashes, text, textOrNull, type Hash } from '../hashes.js';
import { BoundedCache } from '../bounded-cache.js';
import type { Keys } from '../keys.js';
import { decodeCursor, matchesFields, pageByScore, type Page, type PageQuery } from '../pagination.js';
import type { Redis } from '../redis.js';
import { Script } from '../scripts.js';

const appendMessage = new Script('append_message');

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

function fromHash(h: Hash): Conversation {
  return {
    id: text(h, 'id'),
    agent_id: text(h, 'agent_id'),
    session_id: text(h, 'session_id'),
    user_id: textOrNull(h, 'user_id'),
    message_count: int(h, 'message_count'),
    created_at: text(h, 'created_at'),
    updated_at: text(h, 'updated_at'),
    last_message_at: textOrNull(h, 'last_message_at'),
  };
}

/** Cursors over messages are their position in the append-only list, opaque to clients. */
function encodePosition(position: number): string {
  return Buffer.from(`m:${position}`, 'utf8').toString('base64url');
}

function decodePosition(cursor: string): number {
  const match = /^m:(\d{1,9})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (match === null) throw new ValidationError([{ path: 'before', message: 'invalid cursor' }]);
  return Number(match[1]);
}

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

  async get(id: string): Promise<Conversation> {
    const h = await this.redis.hGetAll(this.keys.conversation(id));
    if (Object.keys(h).length === 0) throw new NotFoundError('conversation', id);
    return fromHash({ ...h });
  }

  /** The conversation with its latest `limit` messages (before the cursor), oldest first. */
  async getWithMessages(id: string, query: MessagesQuery = {}): Promise<ConversationWithMessages> {
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
  async list(query: PageQuery, filter: ConversationFilter = {}): Promise<Page<Conversation>> {
    const keep = matchesFields<Conversation>(filter);
    if (filter.session_id !== undefined) return this.ofSession(filter.session_id, query, keep);
    const index =
      filter.agent_id === undefined ? this.keys.conversationIndex() : this.keys.agentConversations(filter.agent_id);
    return pageByScore<Conversation>(
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
    now = Math.round(now);
    // A conversation's agent never changes; cached, it costs no round trip after the first message.
    const agentId = await this.agentOf.getOrLoad(
      conversationId,
      async () => (await this.redis.hGet(this.keys.conversation(conversationId), 'agent_id')) ?? undefined,
    );
    if (agentId === undefined) throw new NotFoundError('conversation', conversationId);
    const message: Message = {
      id: newId('message', now),
      conversation_id: conversationId,
      role: input.role,
      text: input.text,
      status: input.status ?? 'complete',
      created_at: isoNow(now),
      timings: input.timings ?? null,
      error_id: input.error_id ?? null,
    };
    const reply = await appendMessage.run(
      this.redis,
      [
        this.keys.conversation(conversationId),
        this.keys.conversationMessages(conversationId),
        this.keys.agentStats(agentId),
      ],
      [JSON.stringify(message), message.role, now, message.created_at],
    );
    if (reply === 'missing') throw new NotFoundError('conversation', conversationId);
    if (reply !== 'ok') throw new AppError(500, 'internal_error', `append_message replied ${String(reply)}`);
    return message;
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
    keep: (c: Conversation) => boolean,
  ): Promise<Page<Conversation>> {
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
