import type { Logger } from 'pino';
import type { ConversationRecording } from '../schemas/conversation.js';
import type { RecordingNote } from '../store/repositories/conversation-records.js';
import { recordingRate } from './recording-writer.js';
import type { StoredRecording } from './recordings.js';
import { wavHeaderBytes } from './wav-file.js';

/** A conversation as stored, with what its record notes of its recording. */
export interface NotedConversation {
  id: string;
  agent_id: string;
  recording: RecordingNote | null;
}

/** The same conversation as the Admin API tells it: its recording's facts, or null. */
export type DescribedConversation<C extends NotedConversation> = Omit<C, 'recording'> & {
  recording: ConversationRecording | null;
};

/** The facts of a recording (PCM16 at 16 kHz) from its WAV file's size and channels. */
export function recordingFacts(bytes: number, channels: number): ConversationRecording {
  const frames = Math.max(0, Math.floor((bytes - wavHeaderBytes) / (2 * channels)));
  return { duration_ms: Math.round((frames * 1000) / recordingRate), bytes, channels };
}

/**
 * A conversation's `recording` as the Admin API tells it: null when its record notes none; its
 * size as noted when the call ended; otherwise (a call still being recorded, a process that
 * stopped mid-call, a record from before channels were noted) from the file itself, as
 * `GET …/recording` would find it: null when there is no file.
 */
export async function describeRecording<C extends NotedConversation>(
  conversation: C,
  find: (agentId: string, conversationId: string) => Promise<StoredRecording | null>,
  logger: Logger,
): Promise<DescribedConversation<C>> {
  const note = conversation.recording;
  if (note === null) return { ...conversation, recording: null };
  if (note.bytes !== null && note.channels !== null)
    return { ...conversation, recording: recordingFacts(note.bytes, note.channels) };
  try {
    const found = await find(conversation.agent_id, conversation.id);
    if (found === null) return { ...conversation, recording: null };
    const channels = note.channels ?? (await headerChannels(found));
    return { ...conversation, recording: recordingFacts(found.size, channels) };
  } catch (err) {
    // the conversation is still served (one unreadable recording never fails a list); its
    // recording cannot be told now, and GET …/recording would fail the same way
    logger.warn({ err, conversation_id: conversation.id }, 'could not read the size of a recording');
    return { ...conversation, recording: null };
  }
}

/** The channel count in a recording's WAV header (1 while a file is too new to have one). */
async function headerChannels(found: StoredRecording): Promise<number> {
  if (found.size < wavHeaderBytes) return 1;
  const chunks: Buffer[] = [];
  for await (const chunk of await found.read(22, 23)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).readUInt16LE(0);
}
