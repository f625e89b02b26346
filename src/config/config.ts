import { availableParallelism } from 'node:os';
import { ConfigError, envSchema, type RecordingsBucketUrl } from './env-schema.js';
import { redisAddressOf, redisTopologyProblems } from './redis-address.js';
export { ConfigError };

/** Every setting Parley reads, parsed once from the environment (the variables: env-schema.ts). */
export interface Config {
  readonly env: 'development' | 'production' | 'test';
  readonly port: number;
  readonly host: string;
  readonly publicUrl: string | undefined;
  /** Undefined only before main.ts has resolved or generated the key. */
  readonly adminApiKey: string | undefined;
  readonly dataDir: string;
  readonly redisUrl: string | undefined;
  readonly redisPrefix: string;
  /** A Redis silent this long counts as down: requests needing it answer 503 within about 1.5× this. */
  readonly redisTimeoutMs: number;
  readonly logLevel: string;
  /** PARLEY_LOG_FORMAT: `auto` (readable on a terminal, JSON otherwise), `json` or `pretty`. */
  readonly logFormat: 'auto' | 'json' | 'pretty';
  readonly jsonLimitBytes: number;
  readonly trustProxy: boolean;
  readonly shutdownTimeoutMs: number;
  readonly rateLimit: { readonly rpm: number; readonly burst: number };
  readonly espeakBin: string;
  /** TTS provider `flite`: the program (Debian's flite). */
  readonly fliteBin: string;
  readonly maxMessageChars: number;
  readonly chatIdleTimeoutMs: number;
  readonly sessionSweepIntervalMs: number;
  readonly llm: { readonly timeoutMs: number; readonly stallMs: number; readonly historyMessages: number };
  /** Bounds on each STT and TTS call of a voice turn: a transcription, whole; a sentence's speech, whole; a stream's stall. */
  readonly speechLimits: { readonly sttTimeoutMs: number; readonly ttsTimeoutMs: number; readonly stallMs: number };
  /** Agents' tools: plain http allowed to any host (else https, or http to loopback only). */
  readonly tools: { readonly allowHttp: boolean };
  readonly events: {
    readonly retryBaseMs: number;
    readonly timeoutMs: number;
    readonly concurrency: number;
    readonly relayIntervalMs: number;
    /** PARLEY_EVENT_LOCK_MS: a delivery in flight in a killed process runs again elsewhere within twice this. */
    readonly lockMs: number;
    /** How long a voice session's record writes are retried while Redis is unreachable. */
    readonly recordRetryMs: number;
    /** Test hook: SIGKILL right after a record announcing this event is stored (NODE_ENV=test only). */
    readonly crashAfterRecord: 'session_start' | 'llm_response' | 'audio_ready' | 'session_end' | undefined;
  };
  /** Post-call analysis (src/analysis): jobs at once per process, first retry delay, LLM timeout. */
  readonly analysis: { readonly concurrency: number; readonly retryBaseMs: number; readonly timeoutMs: number };
  readonly livekitTokenTtlS: number;
  /** A voice session with no media connection this long after creation ends (`never_connected`); at most the token TTL. */
  readonly voiceConnectWindowMs: number;
  /** Lifetime of a live session's ownership lease; the owner renews it every third of this. */
  readonly sessionLeaseTtlMs: number;
  readonly modelsDir: string;
  /** LLM provider `local-llama`: context sequences per model, tokens per sequence, llama.cpp threads, GPU use. */
  readonly llama: {
    readonly sequences: number;
    readonly contextSize: number;
    readonly threads: number;
    readonly gpu: 'auto' | false;
  };
  /** STT provider `pocketsphinx`: Debian's en-US model folder, decoders per process, worker threads. */
  readonly pocketsphinx: { readonly modelDir: string; readonly decoders: number; readonly threads: number };
  readonly openai: { readonly apiKey: string | undefined; readonly baseUrl: string | undefined };
  /** STT `openai-realtime`: the Realtime endpoint (undefined: OpenAI's) and the key (OPENAI_API_KEY). */
  readonly openaiRealtime: { readonly url: string | undefined; readonly apiKey: string | undefined };
  /** STT provider `deepgram`: PARLEY_DEEPGRAM_API_KEY and PARLEY_DEEPGRAM_URL (undefined: Deepgram's hosted API). */
  readonly deepgram: { readonly apiKey: string | undefined; readonly url: string | undefined };
  /** TTS provider `elevenlabs`: its API key (undefined: not configured) and its API's ws:/wss: origin. */
  readonly elevenlabs: { readonly apiKey: string | undefined; readonly url: string };
  readonly rag: RagConfig;
  readonly livekit: {
    readonly url: string | undefined;
    readonly apiKey: string | undefined;
    readonly apiSecret: string | undefined;
    /** The name Parley registers under as a LiveKit agent worker (token room config, dispatch API, SIP rules). */
    readonly agentName: string;
  };
  /**
   * Phone calls from Twilio (src/realtime/telephony): the auth token that signs its webhooks (unset:
   * the telephony routes answer 503 `telephony_not_configured`) and, when set, the one account
   * whose webhooks are accepted.
   */
  readonly twilio: {
    readonly authToken: string | undefined;
    readonly accountSid: string | undefined;
    /** PARLEY_TWILIO_API_BASE_URL: Twilio's REST API, for outbound calls and call control. */
    readonly apiBaseUrl: string;
    /** PARLEY_TWILIO_ECHO_GUARD: mute the agent's own echo in the caller's audio (audio/echo-guard.ts). */
    readonly echoGuard: boolean;
  };
  /** Live voice sessions this process takes; past it, LiveKit jobs are refused and load reads 1. */
  readonly maxSessions: number;
  /** On SIGTERM, how long live LiveKit sessions may go on before they are ended (`shutdown`). */
  readonly drainTimeoutMs: number;
  /** Processes serving the port (node:cluster); 1: a single process, no cluster. Default: the cores. */
  readonly workers: number;
  /** VAD windows quieter than this (dBFS) outside an utterance skip the model (scored 0); `off`: none do. */
  readonly vadSilenceFloorDbfs: number | 'off';
  /** Call recordings: on disk (no bucket) or in an S3-compatible bucket, and how often their sweep runs. */
  readonly recordings: {
    readonly bucket: RecordingsBucket | undefined;
    readonly sweepIntervalMs: number;
  };
}

/** PARLEY_RECORDINGS_URL with its credentials (undefined: the AWS SDK's default chain). */
export interface RecordingsBucket extends RecordingsBucketUrl {
  readonly credentials: { readonly accessKeyId: string; readonly secretAccessKey: string } | undefined;
}

/** RAG: embeddings, upload limit, chunking, retrieval and ingestion (src/rag). */
export interface RagConfig {
  readonly embedding: {
    readonly provider: 'local' | 'openai';
    /** Folder under MODELS_DIR (local) or model name (openai). */
    readonly model: string;
    readonly baseUrl: string | undefined;
    readonly apiKey: string | undefined;
    readonly workers: number;
    readonly threadsPerWorker: number;
    readonly batchSize: number;
    readonly timeoutMs: number;
  };
  readonly maxUploadBytes: number;
  readonly chunkTokens: number;
  readonly chunkOverlapTokens: number;
  readonly topK: number;
  readonly minScore: number;
  /** Chunks (with vectors) an agent needs before its vectors are searched through an ANN graph. */
  readonly annMinChunks: number;
  /** Ingestion jobs this instance runs at once; 0: it runs none (API-only instance). */
  readonly ingestConcurrency: number;
  readonly jobLockMs: number;
}

/** Parses the environment; throws ConfigError with one readable line per bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  // An empty or blank variable counts as unset (`PORT=` in a compose file), not as 0.
  const parsed = envSchema.safeParse(Object.fromEntries(Object.entries(env).filter(([, v]) => v?.trim())));
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const name = String(issue.path[0] ?? '?');
      const value = env[name];
      const secret = name.includes('KEY') || name.includes('SECRET') || name.includes('PASSWORD');
      // a URL's own password (`redis://user:pw@host`) is a secret too, even in a URL that does not parse
      const shown =
        value === undefined
          ? ''
          : ` (got ${JSON.stringify(secret ? '***' : value.replace(/^([^/]*\/\/[^/@:]*:)[^/@]*@/, '$1***@'))})`;
      return `${name}: ${issue.message}${shown}`;
    });
    throw new ConfigError(problems);
  }
  const e = parsed.data;
  const livekitParts = [e.LIVEKIT_URL, e.LIVEKIT_API_KEY, e.LIVEKIT_API_SECRET];
  if (livekitParts.some((v) => v !== undefined) && livekitParts.some((v) => v === undefined)) {
    throw new ConfigError(['LIVEKIT_URL, LIVEKIT_API_KEY, LIVEKIT_API_SECRET: set all three or none']);
  }
  const keyId = e.PARLEY_RECORDINGS_ACCESS_KEY_ID;
  const secret = e.PARLEY_RECORDINGS_SECRET_ACCESS_KEY;
  if ((keyId === undefined) !== (secret === undefined)) {
    const [set, unset] =
      keyId === undefined
        ? ['PARLEY_RECORDINGS_SECRET_ACCESS_KEY', 'PARLEY_RECORDINGS_ACCESS_KEY_ID']
        : ['PARLEY_RECORDINGS_ACCESS_KEY_ID', 'PARLEY_RECORDINGS_SECRET_ACCESS_KEY'];
    throw new ConfigError([`${set}: set ${unset} too (both or neither)`]);
  }
  if (keyId !== undefined && e.PARLEY_RECORDINGS_URL === undefined) {
    throw new ConfigError(['PARLEY_RECORDINGS_ACCESS_KEY_ID: only with PARLEY_RECORDINGS_URL (a bucket)']);
  }
  const redisProblems = redisTopologyProblems(e);
  if (redisProblems.length > 0) throw new ConfigError(redisProblems);
  return Object.freeze({
    env: e.NODE_ENV,
    port: e.PORT,
    host: e.PARLEY_HOST,
    publicUrl: e.PARLEY_PUBLIC_URL,
    adminApiKey: e.PARLEY_ADMIN_API_KEY,
    dataDir: e.PARLEY_DATA_DIR,
    redisUrl: redisAddressOf(e),
    // On a cluster every Parley key shares one hash tag (docs: notes/redis-topologies.md): `{parley}:{agent:x}` hashes on `parley`.
    redisPrefix: e.REDIS_CLUSTER_NODES === undefined ? e.PARLEY_REDIS_PREFIX : `{${e.PARLEY_REDIS_PREFIX}}`,
    redisTimeoutMs: e.PARLEY_REDIS_TIMEOUT_MS,
    logLevel: e.PARLEY_LOG_LEVEL,
    logFormat: e.PARLEY_LOG_FORMAT,
    jsonLimitBytes: e.PARLEY_JSON_LIMIT_BYTES,
    trustProxy: e.PARLEY_TRUST_PROXY,
    shutdownTimeoutMs: e.PARLEY_SHUTDOWN_TIMEOUT_MS,
    rateLimit: Object.freeze({ rpm: e.PARLEY_RATE_LIMIT_RPM, burst: e.PARLEY_RATE_LIMIT_BURST }),
    espeakBin: e.PARLEY_ESPEAK_BIN,
    fliteBin: e.PARLEY_FLITE_BIN,
    maxMessageChars: e.PARLEY_MAX_MESSAGE_CHARS,
    chatIdleTimeoutMs: e.PARLEY_CHAT_IDLE_TIMEOUT_MS,
    sessionSweepIntervalMs: e.PARLEY_SESSION_SWEEP_INTERVAL_MS,
    llm: Object.freeze({
      timeoutMs: e.PARLEY_LLM_TIMEOUT_MS,
      stallMs: e.PARLEY_PROVIDER_STALL_MS,
      historyMessages: e.PARLEY_LLM_HISTORY_MESSAGES,
    }),
    speechLimits: Object.freeze({
      sttTimeoutMs: e.PARLEY_STT_TIMEOUT_MS,
      ttsTimeoutMs: e.PARLEY_TTS_TIMEOUT_MS,
      stallMs: e.PARLEY_PROVIDER_STALL_MS,
    }),
    tools: Object.freeze({ allowHttp: e.PARLEY_ALLOW_HTTP_TOOLS }),
    events: Object.freeze({
      retryBaseMs: e.PARLEY_EVENT_RETRY_BASE_MS,
      timeoutMs: e.PARLEY_EVENT_TIMEOUT_MS,
      concurrency: e.PARLEY_EVENT_CONCURRENCY,
      relayIntervalMs: e.PARLEY_EVENT_RELAY_INTERVAL_MS,
      lockMs: e.PARLEY_EVENT_LOCK_MS,
      recordRetryMs: e.PARLEY_RECORD_RETRY_MS,
      crashAfterRecord: e.NODE_ENV === 'test' ? e.PARLEY_TEST_CRASH_AFTER_RECORD : undefined,
    }),
    analysis: Object.freeze({
      concurrency: e.PARLEY_ANALYSIS_CONCURRENCY,
      retryBaseMs: e.PARLEY_ANALYSIS_RETRY_BASE_MS,
      timeoutMs: e.PARLEY_ANALYSIS_TIMEOUT_MS,
    }),
    livekitTokenTtlS: e.PARLEY_LIVEKIT_TOKEN_TTL_S,
    // A token outliving the connect window is fine (the session has ended); a window outliving the token is not.
    voiceConnectWindowMs: Math.min(e.PARLEY_VOICE_CONNECT_WINDOW_MS, e.PARLEY_LIVEKIT_TOKEN_TTL_S * 1000),
    sessionLeaseTtlMs: e.PARLEY_SESSION_LEASE_TTL_MS,
    modelsDir: e.MODELS_DIR,
    llama: Object.freeze({
      sequences: e.PARLEY_LLAMA_SEQUENCES,
      contextSize: e.PARLEY_LLAMA_CONTEXT_SIZE,
      threads: e.PARLEY_LLAMA_THREADS ?? Math.max(1, Math.floor(availableParallelism() / 2)),
      gpu: e.PARLEY_LLAMA_GPU === 'off' ? false : ('auto' as const),
    }),
    pocketsphinx: Object.freeze({
      modelDir: e.PARLEY_POCKETSPHINX_MODEL_DIR,
      decoders: e.PARLEY_POCKETSPHINX_DECODERS,
      // decoder threads block on their next window, they do not spin: one per core
      threads: e.PARLEY_POCKETSPHINX_THREADS ?? availableParallelism(),
    }),
    openai: Object.freeze({ apiKey: e.OPENAI_API_KEY, baseUrl: e.OPENAI_BASE_URL }),
    openaiRealtime: Object.freeze({ url: e.PARLEY_OPENAI_REALTIME_URL, apiKey: e.OPENAI_API_KEY }),
    deepgram: Object.freeze({ apiKey: e.PARLEY_DEEPGRAM_API_KEY, url: e.PARLEY_DEEPGRAM_URL }),
    elevenlabs: Object.freeze({ apiKey: e.PARLEY_ELEVENLABS_API_KEY, url: e.PARLEY_ELEVENLABS_URL }),
    rag: Object.freeze({
      embedding: Object.freeze({
        provider: e.PARLEY_EMBEDDING_PROVIDER,
        model:
          e.PARLEY_EMBEDDING_MODEL ??
          (e.PARLEY_EMBEDDING_PROVIDER === 'local' ? 'Xenova/all-MiniLM-L6-v2' : 'text-embedding-3-small'),
        baseUrl: e.PARLEY_EMBEDDING_BASE_URL ?? e.OPENAI_BASE_URL,
        apiKey: e.PARLEY_EMBEDDING_API_KEY ?? e.OPENAI_API_KEY,
        workers: e.PARLEY_EMBEDDING_WORKERS,
        threadsPerWorker: e.PARLEY_EMBEDDING_THREADS,
        batchSize: e.PARLEY_EMBEDDING_BATCH_SIZE,
        timeoutMs: e.PARLEY_EMBEDDING_TIMEOUT_MS,
      }),
      maxUploadBytes: e.PARLEY_RAG_MAX_UPLOAD_BYTES,
      chunkTokens: e.PARLEY_RAG_CHUNK_TOKENS,
      chunkOverlapTokens: Math.min(e.PARLEY_RAG_CHUNK_OVERLAP_TOKENS, Math.floor(e.PARLEY_RAG_CHUNK_TOKENS / 2)),
      topK: e.PARLEY_RAG_TOP_K,
      minScore: e.PARLEY_RAG_MIN_SCORE,
      annMinChunks: e.PARLEY_RAG_ANN_MIN_CHUNKS,
      ingestConcurrency: e.PARLEY_RAG_INGEST_CONCURRENCY,
      jobLockMs: e.PARLEY_RAG_JOB_LOCK_MS,
    }),
    livekit: Object.freeze({
      url: e.LIVEKIT_URL,
      apiKey: e.LIVEKIT_API_KEY,
      apiSecret: e.LIVEKIT_API_SECRET,
      agentName: e.PARLEY_LIVEKIT_AGENT_NAME,
    }),
    twilio: Object.freeze({
      authToken: e.TWILIO_AUTH_TOKEN,
      accountSid: e.TWILIO_ACCOUNT_SID,
      apiBaseUrl: e.PARLEY_TWILIO_API_BASE_URL,
      echoGuard: e.PARLEY_TWILIO_ECHO_GUARD,
    }),
    maxSessions: e.PARLEY_MAX_SESSIONS,
    drainTimeoutMs: e.PARLEY_DRAIN_TIMEOUT_MS,
    workers: e.PARLEY_WORKERS ?? availableParallelism(),
    vadSilenceFloorDbfs: e.PARLEY_VAD_SILENCE_FLOOR_DBFS,
    recordings: Object.freeze({
      bucket:
        e.PARLEY_RECORDINGS_URL === undefined
          ? undefined
          : Object.freeze({
              ...e.PARLEY_RECORDINGS_URL,
              credentials:
                e.PARLEY_RECORDINGS_ACCESS_KEY_ID === undefined || e.PARLEY_RECORDINGS_SECRET_ACCESS_KEY === undefined
                  ? undefined
                  : {
                      accessKeyId: e.PARLEY_RECORDINGS_ACCESS_KEY_ID,
                      secretAccessKey: e.PARLEY_RECORDINGS_SECRET_ACCESS_KEY,
                    },
            }),
      sweepIntervalMs: e.PARLEY_RECORDINGS_SWEEP_INTERVAL_MS,
    }),
  });
}
