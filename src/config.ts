import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { defaultSilenceFloorDbfs, isSilenceFloor } from './pipeline/vad/silence-floor.js';

/**
 * Every setting Parley reads, parsed once from the environment. Names are `PARLEY_*` plus the
 * ecosystem's own (`PORT`, `REDIS_URL`, `OPENAI_*`, `LIVEKIT_*`, `MODELS_DIR`, `NODE_ENV`).
 * The README's configuration table mirrors this schema; keep them in step.
 */

const optionalString = z
  .string()
  .trim()
  .transform((v) => (v === '' ? undefined : v))
  .optional();

const optionalUrl = (protocols: string[]) =>
  optionalString.refine(
    (v) => {
      if (v === undefined) return true;
      try {
        return protocols.includes(new URL(v).protocol);
      } catch {
        return false;
      }
    },
    { message: `must be a URL (${protocols.join(' or ')})` },
  );

const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

export const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORT: int(0, 65535).default(8080),
  PARLEY_HOST: z.string().default('0.0.0.0'),
  PARLEY_PUBLIC_URL: optionalUrl(['http:', 'https:']),
  PARLEY_ADMIN_API_KEY: optionalString.refine((v) => v === undefined || v.length >= 16, {
    message: 'must be at least 16 characters',
  }),
  PARLEY_DATA_DIR: z.string().default('./data'),
  REDIS_URL: optionalUrl(['redis:', 'rediss:']),
  PARLEY_REDIS_PREFIX: z
    .string()
    .regex(/^[a-z0-9_-]+$/i, 'letters, digits, _ and - only')
    .default('parley'),
  PARLEY_REDIS_TIMEOUT_MS: int(100, 60_000).default(1_000),
  PARLEY_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  PARLEY_JSON_LIMIT_BYTES: int(1024, 64 * 1024 * 1024).default(1024 * 1024),
  PARLEY_TRUST_PROXY: bool.default(false),
  PARLEY_SHUTDOWN_TIMEOUT_MS: int(0, 600_000).default(15_000),
  PARLEY_RATE_LIMIT_RPM: int(1, 1_000_000).default(60),
  PARLEY_RATE_LIMIT_BURST: int(1, 1_000_000).default(10),
  PARLEY_ESPEAK_BIN: z.string().default('espeak-ng'),
  PARLEY_MAX_MESSAGE_CHARS: int(1, 100_000).default(4_000),
  PARLEY_CHAT_IDLE_TIMEOUT_MS: int(1_000, 7 * 24 * 3_600_000).default(600_000),
  PARLEY_SESSION_SWEEP_INTERVAL_MS: int(100, 3_600_000).default(10_000),
  PARLEY_LLM_TIMEOUT_MS: int(100, 600_000).default(30_000),
  PARLEY_LLM_HISTORY_MESSAGES: int(0, 200).default(20),
  PARLEY_ALLOW_HTTP_TOOLS: bool.default(false),
  PARLEY_EVENT_RETRY_BASE_MS: int(10, 600_000).default(1_000),
  PARLEY_EVENT_TIMEOUT_MS: int(100, 120_000).default(10_000),
  PARLEY_EVENT_CONCURRENCY: int(1, 256).default(16),
  PARLEY_EVENT_RELAY_INTERVAL_MS: int(10, 600_000).default(1_000),
  PARLEY_RECORD_RETRY_MS: int(0, 600_000).default(30_000),
  PARLEY_ANALYSIS_CONCURRENCY: int(0, 64).default(2),
  PARLEY_ANALYSIS_RETRY_BASE_MS: int(10, 600_000).default(5_000),
  PARLEY_ANALYSIS_TIMEOUT_MS: int(1_000, 600_000).default(60_000),
  /** Test hook (NODE_ENV=test only): the process kills itself (SIGKILL) right after storing a record with this event. */
  PARLEY_TEST_CRASH_AFTER_RECORD: z.enum(['session_start', 'llm_response', 'audio_ready', 'session_end']).optional(),
  PARLEY_LIVEKIT_TOKEN_TTL_S: int(30, 86_400).default(600),
  PARLEY_VOICE_CONNECT_WINDOW_MS: int(500, 86_400_000).default(60_000),
  PARLEY_SESSION_LEASE_TTL_MS: int(1_000, 600_000).default(30_000),
  MODELS_DIR: z.string().default('./models'),
  PARLEY_EMBEDDING_PROVIDER: z.enum(['local', 'openai']).default('local'),
  PARLEY_EMBEDDING_MODEL: optionalString,
  PARLEY_EMBEDDING_BASE_URL: optionalUrl(['http:', 'https:']),
  PARLEY_EMBEDDING_API_KEY: optionalString,
  PARLEY_EMBEDDING_WORKERS: int(1, 64).default(2),
  PARLEY_EMBEDDING_THREADS: int(1, 64).default(1),
  PARLEY_EMBEDDING_BATCH_SIZE: int(1, 2048).default(32),
  PARLEY_EMBEDDING_TIMEOUT_MS: int(100, 600_000).default(30_000),
  PARLEY_RAG_MAX_UPLOAD_BYTES: int(1, 1024 * 1024 * 1024).default(10 * 1024 * 1024),
  PARLEY_RAG_CHUNK_TOKENS: int(16, 4096).default(200),
  PARLEY_RAG_CHUNK_OVERLAP_TOKENS: int(0, 2048).default(40),
  PARLEY_RAG_TOP_K: int(1, 50).default(5),
  PARLEY_RAG_MIN_SCORE: z.coerce.number().min(0).max(1).default(0),
  PARLEY_RAG_ANN_MIN_CHUNKS: int(0, 1_000_000_000).default(20_000),
  PARLEY_RAG_INGEST_CONCURRENCY: int(0, 64).default(1),
  PARLEY_RAG_JOB_LOCK_MS: int(1_000, 3_600_000).default(30_000),
  OPENAI_API_KEY: optionalString,
  OPENAI_BASE_URL: optionalUrl(['http:', 'https:']),
  LIVEKIT_URL: optionalUrl(['ws:', 'wss:', 'http:', 'https:']),
  LIVEKIT_API_KEY: optionalString,
  LIVEKIT_API_SECRET: optionalString,
  PARLEY_LIVEKIT_AGENT_NAME: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9_.-]{1,64}$/, 'letters, digits, _ . and - only (at most 64)')
    .default('parley'),
  PARLEY_MAX_SESSIONS: int(1, 100_000).default(100),
  PARLEY_DRAIN_TIMEOUT_MS: int(0, 3_600_000).default(10_000),
  PARLEY_WORKERS: int(1, 256).optional(),
  PARLEY_VAD_SILENCE_FLOOR_DBFS: z
    .string()
    .transform((v) => (v.trim() === 'off' ? ('off' as const) : Number(v)))
    .refine(isSilenceFloor, 'must be a level in dBFS from -120 to 0, or off')
    .default(defaultSilenceFloorDbfs),
});

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
  readonly jsonLimitBytes: number;
  readonly trustProxy: boolean;
  readonly shutdownTimeoutMs: number;
  readonly rateLimit: { readonly rpm: number; readonly burst: number };
  readonly espeakBin: string;
  readonly maxMessageChars: number;
  readonly chatIdleTimeoutMs: number;
  readonly sessionSweepIntervalMs: number;
  readonly llm: { readonly timeoutMs: number; readonly historyMessages: number };
  /** Agents' tools: plain http allowed to any host (else https, or http to loopback only). */
  readonly tools: { readonly allowHttp: boolean };
  readonly events: {
    readonly retryBaseMs: number;
    readonly timeoutMs: number;
    readonly concurrency: number;
    readonly relayIntervalMs: number;
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
  readonly openai: { readonly apiKey: string | undefined; readonly baseUrl: string | undefined };
  readonly rag: RagConfig;
  readonly livekit: {
    readonly url: string | undefined;
    readonly apiKey: string | undefined;
    readonly apiSecret: string | undefined;
    /** The name Parley registers under as a LiveKit agent worker (token room config, dispatch API, SIP rules). */
    readonly agentName: string;
  };
  /** Live voice sessions this process takes; past it, LiveKit jobs are refused and load reads 1. */
  readonly maxSessions: number;
  /** On SIGTERM, how long live LiveKit sessions may go on before they are ended (`shutdown`). */
  readonly drainTimeoutMs: number;
  /** Processes serving the port (node:cluster); 1: a single process, no cluster. Default: the cores. */
  readonly workers: number;
  /** VAD windows quieter than this (dBFS) outside an utterance skip the model (scored 0); `off`: none do. */
  readonly vadSilenceFloorDbfs: number | 'off';
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

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Parses the environment; throws ConfigError with one readable line per bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  // An empty or blank variable counts as unset (`PORT=` in a compose file), not as 0.
  const parsed = envSchema.safeParse(Object.fromEntries(Object.entries(env).filter(([, v]) => v?.trim())));
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const name = String(issue.path[0] ?? '?');
      const value = env[name];
      const shown =
        value === undefined
          ? ''
          : ` (got ${JSON.stringify(name.includes('KEY') || name.includes('SECRET') ? '***' : value)})`;
      return `${name}: ${issue.message}${shown}`;
    });
    throw new ConfigError(problems);
  }
  const e = parsed.data;
  const livekitParts = [e.LIVEKIT_URL, e.LIVEKIT_API_KEY, e.LIVEKIT_API_SECRET];
  if (livekitParts.some((v) => v !== undefined) && livekitParts.some((v) => v === undefined)) {
    throw new ConfigError(['LIVEKIT_URL, LIVEKIT_API_KEY, LIVEKIT_API_SECRET: set all three or none']);
  }
  return Object.freeze({
    env: e.NODE_ENV,
    port: e.PORT,
    host: e.PARLEY_HOST,
    publicUrl: e.PARLEY_PUBLIC_URL,
    adminApiKey: e.PARLEY_ADMIN_API_KEY,
    dataDir: e.PARLEY_DATA_DIR,
    redisUrl: e.REDIS_URL,
    redisPrefix: e.PARLEY_REDIS_PREFIX,
    redisTimeoutMs: e.PARLEY_REDIS_TIMEOUT_MS,
    logLevel: e.PARLEY_LOG_LEVEL,
    jsonLimitBytes: e.PARLEY_JSON_LIMIT_BYTES,
    trustProxy: e.PARLEY_TRUST_PROXY,
    shutdownTimeoutMs: e.PARLEY_SHUTDOWN_TIMEOUT_MS,
    rateLimit: Object.freeze({ rpm: e.PARLEY_RATE_LIMIT_RPM, burst: e.PARLEY_RATE_LIMIT_BURST }),
    espeakBin: e.PARLEY_ESPEAK_BIN,
    maxMessageChars: e.PARLEY_MAX_MESSAGE_CHARS,
    chatIdleTimeoutMs: e.PARLEY_CHAT_IDLE_TIMEOUT_MS,
    sessionSweepIntervalMs: e.PARLEY_SESSION_SWEEP_INTERVAL_MS,
    llm: Object.freeze({ timeoutMs: e.PARLEY_LLM_TIMEOUT_MS, historyMessages: e.PARLEY_LLM_HISTORY_MESSAGES }),
    tools: Object.freeze({ allowHttp: e.PARLEY_ALLOW_HTTP_TOOLS }),
    events: Object.freeze({
      retryBaseMs: e.PARLEY_EVENT_RETRY_BASE_MS,
      timeoutMs: e.PARLEY_EVENT_TIMEOUT_MS,
      concurrency: e.PARLEY_EVENT_CONCURRENCY,
      relayIntervalMs: e.PARLEY_EVENT_RELAY_INTERVAL_MS,
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
    openai: Object.freeze({ apiKey: e.OPENAI_API_KEY, baseUrl: e.OPENAI_BASE_URL }),
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
    maxSessions: e.PARLEY_MAX_SESSIONS,
    drainTimeoutMs: e.PARLEY_DRAIN_TIMEOUT_MS,
    workers: e.PARLEY_WORKERS ?? availableParallelism(),
    vadSilenceFloorDbfs: e.PARLEY_VAD_SILENCE_FLOOR_DBFS,
  });
}
