import { z } from 'zod';
import { timestampSchema } from './common.js';

/** `tool`: one call of an operator tool (or built-in action) during the agent's answer. */
export const messageRoles = ['user', 'agent', 'tool'] as const;
export const messageStatuses = ['complete', 'interrupted', 'failed'] as const;

export type MessageRole = (typeof messageRoles)[number];
export type MessageStatus = (typeof messageStatuses)[number];

export const conversationAnalysisSchema = z
  .object({
    summary: z.string().meta({ description: 'What the conversation was about and how it ended.' }),
    data: z
      .record(z.string(), z.unknown())
      .nullable()
      .meta({ description: "The structured fields of the agent's `analysis.schema`; null when it has none." }),
    model: z.string().meta({ description: 'The language model that wrote it.' }),
    created_at: timestampSchema,
  })
  .meta({ id: 'ConversationAnalysis' });

export type ConversationAnalysis = z.infer<typeof conversationAnalysisSchema>;

export const conversationRecordingSchema = z
  .object({
    duration_ms: z.number().int().meta({ description: 'Length of the audio: its sample frames at 16 kHz.' }),
    bytes: z.number().int().meta({
      description:
        'Size of the WAV file `GET …/recording` serves, its 44-byte header included; during the call, what has been written so far (every second).',
    }),
    channels: z.number().int().min(1).max(2).meta({
      description:
        '2: the caller on the left, the agent on the right (`recording: on`); 1: the caller (`caller_only`).',
    }),
  })
  .meta({ id: 'ConversationRecording' });

export type ConversationRecording = z.infer<typeof conversationRecordingSchema>;

export const conversationSchema = z
  .object({
    id: z.string().meta({ example: 'cnv_01jd3n6v8m0000000000000000' }),
    agent_id: z.string(),
    session_id: z.string(),
    user_id: z.string().nullable(),
    message_count: z.number().int(),
    created_at: timestampSchema,
    updated_at: timestampSchema,
    last_message_at: timestampSchema.nullable(),
    analysis: conversationAnalysisSchema.nullable().meta({
      description: 'Post-call analysis, once written (agents with `analysis` enabled); null before or without.',
    }),
    recording: conversationRecordingSchema.nullable().meta({
      description:
        'The call recording `GET …/recording` serves; null when there is none: the agent did not record the call (`recording: off`, chat sessions), or the recording failed to start, expired or was deleted.',
    }),
  })
  .meta({ id: 'Conversation' });

export type Conversation = z.infer<typeof conversationSchema>;

/** What a `tool` message records of one tool call (see src/tools). */
export const toolCallRecordSchema = z
  .object({
    call_id: z.string().meta({ description: 'The id the language model gave the call.' }),
    name: z.string().meta({ description: 'The tool called.' }),
    arguments: z.unknown().meta({
      description: 'The arguments the model passed: the parsed JSON object, or the raw text when it was not JSON.',
    }),
    result: z.unknown().optional().meta({ description: 'The JSON the tool answered (absent when the call failed).' }),
    error: z.object({ code: z.string(), message: z.string() }).optional().meta({
      description:
        'Why the call failed (absent when it succeeded): unknown_tool, bad_arguments, timeout, http_error, invalid_response, network_error, aborted.',
    }),
    latency_ms: z.number().meta({ description: 'From the model asking for the call to its result.' }),
  })
  .meta({ id: 'ToolCallRecord' });

export type ToolCallRecord = z.infer<typeof toolCallRecordSchema>;

export const messageSchema = z
  .object({
    id: z.string().meta({ example: 'msg_01jd3n6v8m0000000000000000' }),
    conversation_id: z.string(),
    role: z.enum(messageRoles),
    text: z.string(),
    status: z.enum(messageStatuses).meta({
      description:
        '`interrupted`: the user barged in while the agent spoke it. `failed`: no answer (webhook or LLM error).',
    }),
    created_at: timestampSchema,
    timings: z.record(z.string(), z.number()).nullable().meta({
      description:
        'Milliseconds per stage, e.g. response_ms, webhook_ms, llm_ms, stt_ms, first_audio_ms, end_to_end_ms.',
    }),
    error_id: z.string().nullable().meta({ description: 'The error record explaining a failed message.' }),
    tool_call: toolCallRecordSchema.optional().meta({
      description:
        'On `tool` messages only: the call. `text` is what was fed back to the model; `status` is `failed` (with `error_id`) when the call failed, `interrupted` when barge-in aborted it.',
    }),
  })
  .meta({ id: 'Message' });

export type Message = z.infer<typeof messageSchema>;

/** What the SDK and voice code pass to `ConversationRepository.appendMessage`. */
export interface MessageCreate {
  role: MessageRole;
  text: string;
  status?: MessageStatus | undefined;
  timings?: Record<string, number> | null | undefined;
  error_id?: string | null | undefined;
  tool_call?: ToolCallRecord | undefined;
}

export const conversationWithMessagesSchema = conversationSchema
  .extend({
    messages: z.array(messageSchema).meta({ description: 'Oldest first.' }),
    messages_cursor: z.string().nullable().meta({
      description:
        'Pass as `before` to read the messages older than these; null when these start at the first message.',
    }),
  })
  .meta({ id: 'ConversationWithMessages' });

export type ConversationWithMessages = z.infer<typeof conversationWithMessagesSchema>;
