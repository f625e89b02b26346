import { z } from 'zod';
import { findProvider, providerNames, type Capability } from './provider-catalog.js';
import { metadataSchema, timestampSchema, whenFieldsParsed } from './common.js';
import { ggufModelIdProblem } from './gguf-model-id.js';

function providerEnum(capability: Capability) {
  const [first, ...rest] = providerNames(capability);
  return z.enum([first!, ...rest]);
}

/**
 * Rejects a model a local provider cannot run (for `local-llama`, also a GGUF path that leaves
 * MODELS_DIR; whether the file is there is the preset routes' check); OpenAI-compatible servers
 * accept any model name. Run
 * with `modelChecked` so that it runs when the other fields of the section are bad too.
 */
function checkModel(capability: Capability) {
  return (value: { provider: string; model?: string | null | undefined }, ctx: z.RefinementCtx) => {
    const info = findProvider(capability, value.provider);
    if (info === undefined || value.model === undefined || value.model === null) return;
    if (info.anyModel || info.models.includes(value.model)) return;
    if (info.anyGgufFile === true) {
      const problem = ggufModelIdProblem(value.model);
      if (problem !== null)
        ctx.addIssue({
          code: 'custom',
          path: ['model'],
          message: `${value.provider} takes ${info.models.join(', ')} or a .gguf file under MODELS_DIR named by its relative path (e.g. my-models/model-q4_k_m.gguf); ${value.model}: ${problem}`,
        });
      return;
    }
    ctx.addIssue({
      code: 'custom',
      path: ['model'],
      message: `unknown model for ${value.provider}; one of: ${info.models.join(', ')}`,
    });
  };
}

const modelChecked = { when: whenFieldsParsed('provider', 'model') };

export const sttSettingsSchema = z
  .strictObject({
    provider: providerEnum('stt'),
    model: z.string().min(1).max(200),
    language: z
      .string()
      .max(16)
      .nullable()
      .default(null)
      .meta({ description: 'Language hint; null lets the model detect.' }),
  })
  .superRefine(checkModel('stt'), modelChecked)
  .superRefine(
    (value, ctx) => {
      const language = value.language?.toLowerCase() ?? null;
      if (value.provider === 'pocketsphinx' && language !== null && language !== 'en' && !language.startsWith('en-'))
        ctx.addIssue({
          code: 'custom',
          path: ['language'],
          message: 'pocketsphinx recognises US English only: null, en or en-*',
        });
    },
    { when: whenFieldsParsed('provider', 'language') },
  )
  .meta({ id: 'SttSettings' });

export const llmSettingsSchema = z
  .strictObject({
    provider: providerEnum('llm'),
    model: z.string().min(1).max(200),
    temperature: z.number().min(0).max(2).default(0.7),
    max_tokens: z.number().int().min(1).max(32_768).default(512),
  })
  .superRefine(checkModel('llm'), modelChecked)
  .meta({ id: 'LlmSettings' });

export const ttsSettingsSchema = z
  .strictObject({
    provider: providerEnum('tts'),
    model: z.string().min(1).max(200),
    voice: z.string().min(1).max(100),
    speed: z.number().min(0.25).max(4).default(1),
  })
  .superRefine(checkModel('tts'), modelChecked)
  .meta({ id: 'TtsSettings' });

export const embeddingsSettingsSchema = z
  .strictObject({
    provider: providerEnum('embeddings'),
    model: z.string().min(1).max(200),
  })
  .superRefine(checkModel('embeddings'), modelChecked)
  .meta({
    id: 'EmbeddingsSettings',
    description:
      "Embeds the RAG documents and queries of the preset's agents; a change re-embeds their documents in the background. Null (the default): the deployment's PARLEY_EMBEDDING_PROVIDER / PARLEY_EMBEDDING_MODEL.",
  });

const presetSettingsShape = {
  name: z.string().trim().min(1).max(200),
  description: z.string().max(2000),
  stt: sttSettingsSchema,
  llm: llmSettingsSchema,
  tts: ttsSettingsSchema,
  embeddings: embeddingsSettingsSchema.nullable(),
  metadata: metadataSchema,
};

export const presetCreateSchema = z.strictObject(presetSettingsShape).partial().required({ name: true }).meta({
  id: 'PresetCreate',
  description:
    "Sections left out take the built-in preset's (GET /admin/v1/presets/built-in: what is usable on this server).",
});

export const presetPatchSchema = z
  .strictObject(presetSettingsShape)
  .partial()
  .meta({ id: 'PresetPatch', description: 'Each section given replaces that section whole.' });

export type PresetCreate = z.infer<typeof presetCreateSchema>;
export type PresetPatch = z.infer<typeof presetPatchSchema>;

export const presetSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string(),
    stt: sttSettingsSchema,
    llm: llmSettingsSchema,
    tts: ttsSettingsSchema,
    embeddings: embeddingsSettingsSchema.nullable(),
    metadata: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])),
    agent_count: z.number().int().meta({ description: 'Agents using this preset.' }),
    created_at: timestampSchema,
    updated_at: timestampSchema,
  })
  .meta({ id: 'Preset' });

export type Preset = z.infer<typeof presetSchema>;
export type StoredPreset = Omit<Preset, 'agent_count'>;

/** A new preset's fields left out; its STT, LLM and TTS sections left out are the built-in preset's. */
export const defaultPresetSettings = {
  description: '',
  /** The deployment default (PARLEY_EMBEDDING_*), as for agents without a preset. */
  embeddings: null,
  metadata: {},
};

export const localModelSchema = z
  .object({
    model: z.string().meta({ description: 'The model id a preset names.' }),
    status: z.enum(['installed', 'invalid']).meta({
      description:
        'installed: usable; invalid: present but never loaded (a pinned file whose size or sha256 differs from models/manifest.json, a file that is not a GGUF model, an unreadable folder).',
    }),
    size_bytes: z
      .number()
      .int()
      .nullable()
      .meta({ description: 'Size of a single-file model (GGUF) in bytes; null for a model folder.' }),
    problem: z.string().nullable().meta({ description: 'Why it is invalid and the fix; null when installed.' }),
  })
  .meta({ id: 'LocalModel' });

export const providerAvailabilitySchema = z
  .object({
    capability: z.enum(['stt', 'llm', 'tts', 'embeddings']),
    provider: z.string(),
    label: z.string(),
    kind: z.enum(['remote', 'local', 'binary']),
    models: z.array(z.string()).meta({
      description:
        'The models a preset may name. Local providers: those installed here (local-llama: its catalog model and every .gguf file under MODELS_DIR, by relative path); the catalog ones while none is (configured false).',
    }),
    local_models: z.array(localModelSchema).meta({
      description: 'Local providers: every model found under MODELS_DIR, installed or invalid; empty for the others.',
    }),
    default_model: z.string().nullable(),
    voices: z.array(z.string()),
    default_voice: z.string().nullable(),
    any_model: z.boolean(),
    configured: z.boolean(),
    reason: z.string().nullable().meta({ description: 'Why the provider is not configured; null when it is.' }),
  })
  .meta({ id: 'ProviderAvailability' });

export const builtInChoiceSchema = z
  .object({
    provider: z.string(),
    model: z.string(),
    usable: z.boolean().meta({ description: 'Whether the provider can run here now.' }),
    problem: z
      .string()
      .nullable()
      .meta({ description: 'Why no provider of this capability is usable here, each with its fix; null when usable.' }),
  })
  .meta({ id: 'BuiltInChoice' });

export const builtInPresetSchema = z
  .object({
    stt: sttSettingsSchema,
    llm: llmSettingsSchema,
    tts: ttsSettingsSchema,
    choices: z
      .object({ stt: builtInChoiceSchema, llm: builtInChoiceSchema, tts: builtInChoiceSchema })
      .meta({ description: 'What was taken per capability, and whether it works here.' }),
  })
  .meta({
    id: 'BuiltInPreset',
    description:
      'Per capability the first provider usable on this server, in the order STT: local-whisper, openai, pocketsphinx; LLM: openai, local-llama; TTS: local-vits, openai, flite, espeak. None usable: the first, with its problem.',
  });
