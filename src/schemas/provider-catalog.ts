/**
 * Every provider Parley implements, by capability, with the models and voices it knows.
 * `presets/available` and preset validation read this list; `/health/providers` probes it.
 */

export const capabilities = ['stt', 'llm', 'tts', 'embeddings'] as const;
export type Capability = (typeof capabilities)[number];

export interface ProviderInfo {
  capability: Capability;
  /** Name used in preset records. */
  provider: string;
  label: string;
  /** `remote`: a network API (OpenAI-compatible HTTP or its Realtime WebSocket, Deepgram's, ElevenLabs'); `local`: runs in this process; `binary`: a local program. */
  kind: 'remote' | 'local' | 'binary';
  /** Known models. For remote providers any model the server accepts is allowed; these are suggestions. */
  models: string[];
  defaultModel: string | null;
  /** Voices for TTS providers (empty for `elevenlabs`: any voice id of the account); empty elsewhere. */
  voices: string[];
  defaultVoice: string | null;
  /** Whether a preset may name a model outside `models` (true for OpenAI-compatible servers). */
  anyModel: boolean;
  /**
   * Single-file models (GGUF): the file each model is, in its folder under MODELS_DIR. Without it a
   * local model is a transformers.js folder (`config.json`, `onnx/`).
   */
  modelFiles?: Readonly<Record<string, string>>;
  /**
   * Besides `models`, any `.gguf` file under MODELS_DIR, named by its path relative to MODELS_DIR
   * (schemas/gguf-model-id.ts): the operator's own models.
   */
  anyGgufFile?: boolean;
}

const openaiVoices = ['alloy', 'ash', 'ballad', 'coral', 'echo', 'fable', 'nova', 'onyx', 'sage', 'shimmer'];

export const providers: readonly ProviderInfo[] = [
  {
    capability: 'stt',
    provider: 'openai',
    label: 'OpenAI-compatible transcription (/v1/audio/transcriptions)',
    kind: 'remote',
    models: ['gpt-4o-mini-transcribe', 'gpt-4o-transcribe', 'whisper-1'],
    defaultModel: 'gpt-4o-mini-transcribe',
    voices: [],
    defaultVoice: null,
    anyModel: true,
  },
  {
    capability: 'stt',
    provider: 'local-whisper',
    label: 'Whisper in-process (transformers.js, ONNX)',
    kind: 'local',
    models: ['Xenova/whisper-tiny.en', 'Xenova/whisper-base.en', 'Xenova/whisper-small'],
    defaultModel: 'Xenova/whisper-tiny.en',
    voices: [],
    defaultVoice: null,
    anyModel: false,
  },
  {
    capability: 'stt',
    provider: 'openai-realtime',
    label: 'OpenAI Realtime transcription (WebSocket, streaming)',
    kind: 'remote',
    models: ['gpt-4o-mini-transcribe', 'gpt-4o-transcribe', 'whisper-1'],
    defaultModel: 'gpt-4o-mini-transcribe',
    voices: [],
    defaultVoice: null,
    anyModel: true,
  },
  {
    capability: 'stt',
    provider: 'pocketsphinx',
    label: "CMU PocketSphinx in-process (Debian's libpocketsphinx3; streaming, US English)",
    kind: 'local',
    models: ['en-us'],
    defaultModel: 'en-us',
    voices: [],
    defaultVoice: null,
    anyModel: false,
  },
  {
    capability: 'stt',
    provider: 'deepgram',
    label: 'Deepgram live streaming (/v1/listen WebSocket; hosted or self-hosted; streaming, punctuated)',
    kind: 'remote',
    models: ['nova-3', 'nova-3-medical', 'nova-2', 'nova-2-phonecall'],
    defaultModel: 'nova-3',
    voices: [],
    defaultVoice: null,
    anyModel: true,
  },
  {
    capability: 'llm',
    provider: 'openai',
    label: 'OpenAI-compatible chat completions (/v1/chat/completions)',
    kind: 'remote',
    models: ['gpt-4o-mini', 'gpt-4o', 'gpt-4.1-mini'],
    defaultModel: 'gpt-4o-mini',
    voices: [],
    defaultVoice: null,
    anyModel: true,
  },
  {
    capability: 'llm',
    provider: 'local-llama',
    label: 'GGUF model in-process (node-llama-cpp: CUDA, Vulkan or Metal when present, else CPU)',
    kind: 'local',
    models: ['Qwen/Qwen2.5-0.5B-Instruct-GGUF'],
    defaultModel: 'Qwen/Qwen2.5-0.5B-Instruct-GGUF',
    voices: [],
    defaultVoice: null,
    anyModel: false,
    modelFiles: { 'Qwen/Qwen2.5-0.5B-Instruct-GGUF': 'qwen2.5-0.5b-instruct-q4_k_m.gguf' },
    anyGgufFile: true,
  },
  {
    capability: 'tts',
    provider: 'espeak',
    label: 'espeak-ng (local program, zero download)',
    kind: 'binary',
    models: ['espeak-ng'],
    defaultModel: 'espeak-ng',
    voices: ['en', 'en-us', 'en-gb', 'de', 'es', 'fr', 'it', 'pt', 'nl', 'pl', 'ru', 'hi', 'ja', 'zh'],
    defaultVoice: 'en-us',
    anyModel: false,
  },
  {
    capability: 'tts',
    provider: 'flite',
    label: 'CMU Flite (local program, zero download)',
    kind: 'binary',
    models: ['flite'],
    defaultModel: 'flite',
    voices: ['slt', 'rms', 'awb', 'kal16', 'kal'],
    defaultVoice: 'slt',
    anyModel: false,
  },
  {
    capability: 'tts',
    provider: 'openai',
    label: 'OpenAI-compatible speech (/v1/audio/speech, streamed PCM)',
    kind: 'remote',
    models: ['gpt-4o-mini-tts', 'tts-1', 'tts-1-hd'],
    defaultModel: 'gpt-4o-mini-tts',
    voices: openaiVoices,
    defaultVoice: 'alloy',
    anyModel: true,
  },
  {
    capability: 'tts',
    provider: 'local-vits',
    label: 'VITS / MMS-TTS in-process (transformers.js, ONNX)',
    kind: 'local',
    models: ['Xenova/mms-tts-eng'],
    defaultModel: 'Xenova/mms-tts-eng',
    voices: ['default'],
    defaultVoice: 'default',
    anyModel: false,
  },
  {
    capability: 'tts',
    provider: 'elevenlabs',
    label: 'ElevenLabs (input-streaming WebSocket: text in as it is produced, PCM out)',
    kind: 'remote',
    models: ['eleven_flash_v2_5', 'eleven_turbo_v2_5', 'eleven_multilingual_v2'],
    defaultModel: 'eleven_flash_v2_5',
    voices: [],
    // "George", a premade voice every account has
    defaultVoice: 'JBFqnCBsd6RMkjVDRZzb',
    anyModel: true,
  },
  {
    capability: 'embeddings',
    provider: 'local',
    label: 'Sentence embeddings in-process (transformers.js, ONNX, worker threads)',
    kind: 'local',
    models: ['Xenova/all-MiniLM-L6-v2'],
    defaultModel: 'Xenova/all-MiniLM-L6-v2',
    voices: [],
    defaultVoice: null,
    anyModel: false,
  },
  {
    capability: 'embeddings',
    provider: 'openai',
    label: 'OpenAI-compatible embeddings (/v1/embeddings)',
    kind: 'remote',
    models: ['text-embedding-3-small', 'text-embedding-3-large'],
    defaultModel: 'text-embedding-3-small',
    voices: [],
    defaultVoice: null,
    anyModel: true,
  },
];

export function findProvider(capability: Capability, provider: string): ProviderInfo | undefined {
  return providers.find((p) => p.capability === capability && p.provider === provider);
}

export function providerNames(capability: Capability): string[] {
  return providers.filter((p) => p.capability === capability).map((p) => p.provider);
}
