import { z } from 'zod';
import { isId } from '../ids/id-format.js';
import { transferTargetSchema } from './transfer-target.js';
import { analysisSettingsSchema, type AnalysisSettings } from './analysis-settings.js';
import { httpUrlSchema, metadataSchema, timestampSchema } from './common.js';
import { toolSettingsSchema, toolsSchema, type ToolSettings } from './tool-settings.js';
import { defaultTurnTakingSettings, turnTakingRecordShape, turnTakingSettingsShape } from './turn-taking.js';
import { defaultRecordingSettings, recordingRecordShape, recordingSettingsShape } from './recording-settings.js';

export const agentModes = ['enhanced', 'passthrough'] as const;

/** Defaults for every setting an operator may leave out when creating an agent. */
export const defaultAgentSettings = {
  description: '',
  mode: 'enhanced' as (typeof agentModes)[number],
  preset_id: null as string | null,
  system_prompt: 'You are a helpful voice assistant. Answer briefly and conversationally.',
  greeting: null as string | null,
  fallback_line: "Sorry, I can't answer right now.",
  language: 'en',
  expected_phrases: [] as string[],
  expected_phrases_only: false,
  webhook_url: null as string | null,
  webhook_timeout_ms: 30_000,
  events_url: null as string | null,
  rag_enabled: false,
  interruptions_enabled: true,
  interruption_min_speech_ms: 300,
  vad_threshold: 0.5,
  min_silence_ms: 550,
  prefix_padding_ms: 300,
  max_utterance_ms: 30_000,
  idle_timeout_ms: 120_000,
  max_duration_ms: 1_800_000,
  ...defaultTurnTakingSettings,
  metadata: {} as Record<string, string | number | boolean | null>,
  tools: [] as ToolSettings[],
  end_call_enabled: false,
  transfer_enabled: false,
  transfer_to: null as string | null,
  analysis: null as AnalysisSettings | null,
  phone_numbers: [] as string[],
  phone_caller_id_as_user: true,
  ...defaultRecordingSettings,
};

/** E.164: `+`, a country code not starting with 0, at most 15 digits in all. */
export const e164Pattern = /^\+[1-9]\d{1,14}$/;

/** The settings an operator writes (create and patch); `webhook_api_key` is write-only. */
export const agentSettingsShape = {
  name: z.string().trim().min(1).max(200).meta({ description: 'Shown in the panel and lists.' }),
  description: z.string().max(2000).meta({ description: 'Notes for operators; never sent to users.' }),
  mode: z
    .enum(agentModes)
    .meta({ description: '`enhanced`: Parley answers with its LLM. `passthrough`: the webhook answers.' }),
  preset_id: z
    .string()
    .refine((v) => isId('preset', v), { message: 'must be a pre_… id' })
    .nullable()
    .meta({ description: 'Preset choosing STT, LLM, TTS and embedding providers; null uses the built-in default.' }),
  system_prompt: z
    .string()
    .max(20_000)
    .meta({ description: 'Instructions for the language model in `enhanced` mode (unused in `passthrough`).' }),
  greeting: z.string().max(2000).nullable().meta({ description: 'Spoken when a voice session starts; null for none.' }),
  fallback_line: z.string().trim().max(500).meta({
    description:
      'Voice: spoken when a turn cannot be answered (the STT, webhook or LLM failed, or no LLM can run here), after the `error` message; empty: the turn stays silent. Not spoken when the TTS itself failed. Default: "Sorry, I can\'t answer right now."',
  }),
  language: z
    .string()
    .regex(/^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/, 'must be a BCP 47 language tag such as en or en-US')
    .meta({ description: 'BCP 47 tag of the conversation language, e.g. en or en-US.' }),
  expected_phrases: z
    .array(
      z
        .string()
        .trim()
        .toLowerCase()
        .min(1)
        .max(100)
        .regex(/^[\p{L}' ]+$/u, 'words only: letters, apostrophes and spaces'),
    )
    .max(500)
    .meta({
      description:
        'Voice: the words and phrases callers are expected to say (names, products, menu answers). STT `pocketsphinx` makes them likelier in its language model, any other words still heard (words missing from its dictionary get a guessed pronunciation); `openai` and `openai-realtime` send them as the transcription prompt; `deepgram` as vocabulary hints (Nova-3 `keyterm`, older models `keywords`); `local-whisper` ignores them. Empty: none.',
    }),
  expected_phrases_only: z.boolean().meta({
    description:
      'Voice, STT `pocketsphinx`: hear only the expected phrases (a grammar: a phone menu) instead of making them likelier. Menu answers are then heard more often, but anything else said is heard as the nearest phrase, or as nothing (every word must be in its dictionary). Other STT providers ignore it.',
  }),
  webhook_url: httpUrlSchema
    .nullable()
    .meta({ description: 'Operator endpoint that answers each user turn in `passthrough` mode (POST, JSON).' }),
  webhook_api_key: z
    .string()
    .min(1)
    .max(500)
    .nullable()
    .meta({ description: 'Write-only. Sent as `Authorization: Bearer` and used to sign webhook and event requests.' }),
  webhook_timeout_ms: z
    .number()
    .int()
    .min(100)
    .max(120_000)
    .meta({ description: 'How long a webhook answer may take; after it the turn is silent and an error is recorded.' }),
  events_url: httpUrlSchema
    .nullable()
    .meta({ description: 'Where asynchronous events (session_start, llm_response, …) are POSTed; null for none.' }),
  rag_enabled: z.boolean().meta({ description: 'Retrieve context from the agent’s documents for every turn.' }),
  interruptions_enabled: z.boolean().meta({ description: 'Barge-in: user speech stops the agent speaking.' }),
  interruption_min_speech_ms: z
    .number()
    .int()
    .min(0)
    .max(5_000)
    .meta({ description: 'User speech over the agent must last this long to interrupt it.' }),
  vad_threshold: z
    .number()
    .min(0.05)
    .max(0.95)
    .meta({ description: 'Speech probability above which audio counts as speech; higher ignores more noise.' }),
  min_silence_ms: z
    .number()
    .int()
    .min(100)
    .max(5_000)
    .meta({ description: 'Silence that ends the user’s turn (endpointing); lower answers sooner, cuts pauses.' }),
  prefix_padding_ms: z
    .number()
    .int()
    .min(0)
    .max(2_000)
    .meta({ description: 'Audio kept from before speech was detected, so first syllables are not lost.' }),
  max_utterance_ms: z
    .number()
    .int()
    .min(1_000)
    .max(120_000)
    .meta({ description: 'Longest single utterance; longer speech is ended and answered.' }),
  idle_timeout_ms: z
    .number()
    .int()
    .min(5_000)
    .max(3_600_000)
    .meta({ description: 'A voice session with no speech for this long ends (idle_timeout).' }),
  max_duration_ms: z
    .number()
    .int()
    .min(10_000)
    .max(14_400_000)
    .meta({ description: 'Longest voice session; it then ends (max_duration).' }),
  ...turnTakingSettingsShape,
  metadata: metadataSchema,
  tools: toolsSchema,
  end_call_enabled: z.boolean().meta({
    description:
      'Enhanced mode: the LLM may call the built-in `end_call` action (say closing words, then hang up: `agent_hangup`).',
  }),
  transfer_enabled: z.boolean().meta({
    description: 'Enhanced mode: the LLM may call the built-in `transfer` action (hand the caller to `transfer_to`).',
  }),
  transfer_to: transferTargetSchema.nullable().meta({
    description:
      'Where `transfer` sends the caller: a SIP URI (sip:desk@pbx.example.com), tel: URI or phone number (+15105550100) for LiveKit SIP transfer; WebSocket clients receive it in the `transfer` message. Null: none (WebSocket clients decide).',
  }),
  analysis: analysisSettingsSchema.nullable(),
  phone_numbers: z
    .array(z.string().regex(e164Pattern, 'must be an E.164 number such as +15105550100'))
    .max(100)
    .refine((numbers) => new Set(numbers).size === numbers.length, { message: 'lists a number twice' })
    .meta({
      description:
        'Phone numbers (E.164) whose calls this agent answers (Twilio voice webhook, see Phone calls). A number belongs to one agent: one already on another agent is 409 `conflict`.',
    }),
  phone_caller_id_as_user: z.boolean().meta({
    description: "Phone calls: the caller's number (`From`) becomes the session's `user_id`; false: `user_id` is null.",
  }),
  ...recordingSettingsShape,
};

export const agentCreateSchema = z
  .strictObject(agentSettingsShape)
  .partial()
  .required({ name: true })
  .meta({ id: 'AgentCreate' });

export const agentPatchSchema = z.strictObject(agentSettingsShape).partial().meta({ id: 'AgentPatch' });

export type AgentCreate = z.infer<typeof agentCreateSchema>;
export type AgentPatch = z.infer<typeof agentPatchSchema>;

export const agentSchema = z
  .object({
    id: z.string().meta({ example: 'agt_01jd3n6v8m0000000000000000' }),
    name: agentSettingsShape.name,
    description: z.string(),
    mode: z.enum(agentModes),
    preset_id: z.string().nullable(),
    system_prompt: z.string(),
    greeting: z.string().nullable(),
    fallback_line: z.string(),
    language: z.string(),
    expected_phrases: z.array(z.string()),
    expected_phrases_only: z.boolean(),
    webhook_url: z.string().nullable(),
    has_webhook_api_key: z.boolean(),
    webhook_timeout_ms: z.number().int(),
    events_url: z.string().nullable(),
    rag_enabled: z.boolean(),
    interruptions_enabled: z.boolean(),
    interruption_min_speech_ms: z.number().int(),
    vad_threshold: z.number(),
    min_silence_ms: z.number().int(),
    prefix_padding_ms: z.number().int(),
    max_utterance_ms: z.number().int(),
    idle_timeout_ms: z.number().int(),
    max_duration_ms: z.number().int(),
    ...turnTakingRecordShape,
    metadata: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])),
    tools: z.array(toolSettingsSchema),
    end_call_enabled: z.boolean(),
    transfer_enabled: z.boolean(),
    transfer_to: z.string().nullable(),
    analysis: z
      .object({
        enabled: z.boolean(),
        prompt: z.string().nullable(),
        schema: z.record(z.string(), z.unknown()).nullable(),
      })
      .nullable(),
    phone_numbers: z.array(z.string()),
    phone_caller_id_as_user: z.boolean(),
    ...recordingRecordShape,
    agent_token: z.string().meta({ description: 'Secret the SDK sends as `agent_token`; regenerate to revoke.' }),
    created_at: timestampSchema,
    updated_at: timestampSchema,
  })
  .meta({ id: 'AgentRecord' });

export type Agent = z.infer<typeof agentSchema>;

/** What Redis holds: the public record plus the write-only webhook key. */
export type StoredAgent = Omit<Agent, 'has_webhook_api_key'> & { webhook_api_key: string | null };

/**
 * A stored record with the defaults of settings added after it was written (records are JSON;
 * an agent saved before a setting existed reads as having its default).
 */
export function withSettingDefaults(stored: StoredAgent): StoredAgent {
  return { ...defaultAgentSettings, ...stored };
}

export function toPublicAgent(stored: StoredAgent): Agent {
  const { webhook_api_key, ...rest } = withSettingDefaults(stored);
  return { ...rest, has_webhook_api_key: webhook_api_key !== null };
}

export const agentStatsSchema = z
  .object({
    agent_id: z.string(),
    sessions: z.object({
      total: z.number().int(),
      active: z.number().int(),
      chat: z.number().int(),
      voice: z.number().int(),
    }),
    messages: z.object({ user: z.number().int(), agent: z.number().int() }),
    turns: z.number().int().meta({ description: 'Answered user turns (chat messages and voice utterances).' }),
    interrupted_turns: z.number().int(),
    errors: z.object({ total: z.number().int(), open: z.number().int() }),
    avg_response_ms: z
      .number()
      .nullable()
      .meta({ description: 'Mean time from user message to answer; null before the first answer.' }),
    last_active_at: timestampSchema.nullable(),
  })
  .meta({ id: 'AgentStats' });

export type AgentStats = z.infer<typeof agentStatsSchema>;
