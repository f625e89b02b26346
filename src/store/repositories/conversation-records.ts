import { isoNow } from '../../schemas/timestamps.js';
import { ValidationError } from '../../errors/app-errors.js';
import { newId } from '../../ids/new-id.js';
import type {
  ConversationAnalysis,
  Conversation,
  ConversationWithMessages,
  Message,
  MessageCreate,
} from '../../schemas/conversation.js';
import { int, jsonField, numberOrNull, text, textOrNull, type Hash } from '../hashes.js';
import { recordingFields } from './conversation-recordings.js';

/**
 * What a conversation's hash says of its call recording: there is one (its channels: null on a
 * record from before they were kept), and its size once the call was over (null before, or when
 * its process stopped mid-call). src/call-recordings tells the rest (recording-facts.ts).
 */
export interface RecordingNote {
  channels: number | null;
  bytes: number | null;
}

/** A conversation as stored: its `recording` as the hash notes it, not yet what the API tells. */
export type StoredConversation = Omit<Conversation, 'recording'> & { recording: RecordingNote | null };

export type StoredConversationWithMessages = StoredConversation &
  Pick<ConversationWithMessages, 'messages' | 'messages_cursor'>;

/** A conversation record as its Redis hash holds it. */
export function fromHash(h: Hash): StoredConversation {
  return {
    id: text(h, 'id'),
    agent_id: text(h, 'agent_id'),
    session_id: text(h, 'session_id'),
    user_id: textOrNull(h, 'user_id'),
    message_count: int(h, 'message_count'),
    created_at: text(h, 'created_at'),
    updated_at: text(h, 'updated_at'),
    last_message_at: textOrNull(h, 'last_message_at'),
    analysis: jsonField<ConversationAnalysis | null>(h, 'analysis', null),
    recording:
      h[recordingFields.startedAt] === undefined
        ? null
        : { channels: numberOrNull(h, recordingFields.channels), bytes: numberOrNull(h, recordingFields.bytes) },
  };
}

/** Cursors over messages are their position in the append-only list, opaque to clients. */
export function encodePosition(position: number): string {
  return Buffer.from(`m:${position}`, 'utf8').toString('base64url');
}

export function decodePosition(cursor: string): number {
  const match = /^m:(\d{1,9})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (match === null) throw new ValidationError([{ path: 'before', message: 'invalid cursor' }]);
  return Number(match[1]);
}

/** A message as stored, its id and timestamp made now (so a retried write stores the same one). */
export function newMessage(conversationId: string, input: MessageCreate, now: number = Date.now()): Message {
  now = Math.round(now);
  return {
    id: newId('message', now),
    conversation_id: conversationId,
    role: input.role,
    text: input.text,
    status: input.status ?? 'complete',
    created_at: isoNow(now),
    timings: input.timings ?? null,
    error_id: input.error_id ?? null,
    ...(input.tool_call === undefined ? {} : { tool_call: input.tool_call }),
  };
}
