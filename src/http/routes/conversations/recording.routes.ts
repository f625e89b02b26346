import { z } from 'zod';
import { AppError, ConflictError, nullIfNotFound } from '../../../errors/app-errors.js';
import { parseByteRange } from '../../../call-recordings/byte-range.js';
import type { Recordings } from '../../../call-recordings/recordings.js';
import type { Store } from '../../../store/store.js';
import { defineRoute, type RouteDef } from '../../route.js';
import { conversationIdParams } from './conversations.schema.js';

const tag = 'Conversations';
const wav = z.string().meta({ format: 'binary', description: 'WAV, PCM16 16 kHz: left the caller, right the agent' });

/** A conversation's recording (streamed, with byte ranges), and deleting a conversation with it. */
export function recordingRoutes(store: Store, recordings: Pick<Recordings, 'find' | 'delete'>): RouteDef[] {
  return [
    defineRoute({
      method: 'get',
      path: '/conversations/:id/recording',
      operationId: 'getConversationRecording',
      summary:
        "The conversation's call recording as `audio/wav`, with byte ranges (`Range: bytes=…` → 206, past the end → 416); `X-Recording-Started-At` says when its first sample was (to place messages in it). 404 `recording_not_found` when the call was not recorded or its recording has expired.",
      tag,
      params: conversationIdParams,
      errors: [404, 416],
      responses: {
        200: { description: 'The whole recording', schema: wav, contentType: 'audio/wav' },
        206: { description: 'The bytes asked for (`Content-Range`)', schema: wav, contentType: 'audio/wav' },
      },
      handler: async (ctx, { params }) => {
        const conversation = await store.conversations.get(params.id);
        const recording = await recordings.find(conversation.agent_id, conversation.id);
        if (recording === null)
          throw new AppError(404, 'recording_not_found', `conversation ${conversation.id} has no recording`);
        const { size } = recording;
        const startedAt = await store.conversationRecordings.startedAt(conversation.id);
        const headers = {
          'Content-Type': 'audio/wav',
          'Accept-Ranges': 'bytes',
          'Cache-Control': 'private, no-store',
          ...(startedAt === null ? {} : { 'X-Recording-Started-At': startedAt }),
        };
        const range = parseByteRange(ctx.get('Range') || undefined, size);
        if (range.kind === 'unsatisfiable')
          throw new AppError(416, 'range_not_satisfiable', `the recording has ${size} bytes`, undefined, {
            'Content-Range': `bytes */${size}`,
          });
        if (range.kind === 'whole')
          return {
            status: 200,
            headers: { ...headers, 'Content-Length': String(size) },
            body: size === 0 ? '' : await recording.read(0, size - 1),
          };
        const { start, end } = range;
        return {
          status: 206,
          headers: {
            ...headers,
            'Content-Length': String(end - start + 1),
            'Content-Range': `bytes ${start}-${end}/${size}`,
          },
          body: await recording.read(start, end),
        };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/conversations/:id',
      operationId: 'deleteConversation',
      summary:
        'Delete a conversation: its messages and its recording. 409 `conflict` while its session is active (end it first).',
      tag,
      params: conversationIdParams,
      errors: [404, 409],
      responses: { 204: { description: 'Deleted' } },
      handler: async (_ctx, { params }) => {
        const conversation = await store.conversations.get(params.id);
        const session = await store.sessions.get(conversation.session_id).catch(nullIfNotFound);
        if (session?.status === 'active')
          throw new ConflictError(`session ${session.id} is still active: end it before deleting its conversation`);
        // the recording first: a conversation that is gone never leaves its audio behind
        await recordings.delete(conversation.agent_id, conversation.id);
        await store.conversations.delete(conversation);
        return { status: 204 };
      },
    }),
  ];
}
