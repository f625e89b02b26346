import { z } from 'zod';
import { defaultSentinelMaster, parseNodeList } from './redis-address.js';

/**
 * The environment variables Parley reads and how each is checked (src/config/config.ts turns the result
 * into the Config the rest of Parley uses). Names are `PARLEY_*` plus the ecosystem's own
 * (`PORT`, `REDIS_URL`, `OPENAI_*`, `LIVEKIT_*`, `TWILIO_*`, `MODELS_DIR`, `NODE_ENV`). The README's
 * configuration table mirrors this schema; keep them in step.
 */

/**
 * The VAD's silence floor (src/pipeline/vad/silence-floor.ts): a level in dBFS (a window's RMS
 * against int16 full scale, 32768), or `off`: every window goes to the model.
 */
export type SilenceFloorDbfs = number | 'off';

/** -60 dBFS: RMS 33 of 32768, well under speech and above digital silence and dither (~-90). */
export const defaultSilenceFloorDbfs = -60;
export const minSilenceFloorDbfs = -120;

/** Whether `floor` is a level the VAD takes: -120..0 dBFS, or `off`. */
export function isSilenceFloor(floor: SilenceFloorDbfs): boolean {
  return floor === 'off' || (floor >= minSilenceFloorDbfs && floor <= 0);
}

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
        return false; // not a URL at all: reported as "must be a URL" for the variable
      }
    },
    { message: `must be a URL (${protocols.join(' or ')})` },
  );

function isNodeList(list: string): boolean {
  try {
    return parseNodeList(list).length > 0;
  } catch {
    return false; // parseNodeList's message names the entry; the schema's own message is enough here
  }
}

/** Where recordings go when not on disk: an S3-compatible bucket (README "Recordings"). */
export interface RecordingsBucketUrl {
  bucket: string;
  /** Key prefix, '' or ending in '/'. */
  prefix: string;
  /** Another S3-compatible service (MinIO, R2, …); absent: AWS S3 of the region. */
  endpoint: string | undefined;
  region: string;
  /** Path-style addressing (`<endpoint>/<bucket>/<key>`), as most self-hosted services need. */
  forcePathStyle: boolean;
}

const bucketUrlParams = new Set(['endpoint', 'region', 'path_style']);

/** `s3://<bucket>[/<prefix>][?endpoint=<http(s) URL>&region=<region>&path_style=true|false]`, or the problem with it. */
export function parseRecordingsUrl(value: string): RecordingsBucketUrl | string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be a URL: s3://<bucket>[/<prefix>][?endpoint=…&region=…&path_style=true]';
  }
  if (url.protocol !== 's3:') return 'must start with s3:// (unset: recordings on disk under PARLEY_DATA_DIR)';
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(url.hostname)) return `"${url.hostname}" is not a bucket name`;
  if (url.username !== '' || url.password !== '')
    return 'carries no credentials: set PARLEY_RECORDINGS_ACCESS_KEY_ID and PARLEY_RECORDINGS_SECRET_ACCESS_KEY';
  const unknown = [...url.searchParams.keys()].filter((k) => !bucketUrlParams.has(k));
  if (unknown.length > 0) return `unknown parameter ${unknown.join(', ')} (endpoint, region, path_style)`;
  const endpoint = url.searchParams.get('endpoint') ?? undefined;
  if (endpoint !== undefined && !/^https?:\/\/[^/]+\/?$/.test(endpoint))
    return 'endpoint must be an http(s) origin, e.g. http://127.0.0.1:9000';
  const pathStyle = url.searchParams.get('path_style');
  if (pathStyle !== null && pathStyle !== 'true' && pathStyle !== 'false') return 'path_style must be true or false';
  const prefix = decodeURIComponent(url.pathname).replace(/^\/+|\/+$/g, '');
  return {
    bucket: url.hostname,
    prefix: prefix === '' ? '' : `${prefix}/`,
    endpoint,
    region: url.searchParams.get('region') ?? 'us-east-1',
    // a custom endpoint is most often MinIO or the like, which wants path-style
    forcePathStyle: pathStyle === null ? endpoint !== undefined : pathStyle === 'true',
  };
}

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
  /** Sentinels (host:port list) to find the master through; exclusive with REDIS_URL and REDIS_CLUSTER_NODES. */
  REDIS_SENTINELS: optionalString.refine((v) => v === undefined || isNodeList(v), {
    message: 'must be a comma list of host:port',
  }),
  REDIS_SENTINEL_MASTER: z.string().trim().min(1).default(defaultSentinelMaster),
  REDIS_SENTINEL_PASSWORD: optionalString,
  /** Seed nodes (host:port list) of a Redis Cluster; exclusive with REDIS_URL and REDIS_SENTINELS. */
  REDIS_CLUSTER_NODES: optionalString.refine((v) => v === undefined || isNodeList(v), {
    message: 'must be a comma list of host:port',
  }),
  /** The data nodes' ACL user, password and TLS with REDIS_SENTINELS or REDIS_CLUSTER_NODES (REDIS_URL carries its own). */
  REDIS_USERNAME: optionalString,
  REDIS_PASSWORD: optionalString,
  REDIS_TLS: bool.optional(),
  /** Replicas that must hold each record write (WAIT) before it counts as done; default 1 with Sentinels, 0 on a cluster. */
  REDIS_WAIT_REPLICAS: int(0, 16).optional(),
  PARLEY_REDIS_PREFIX: z
    .string()
    .regex(/^[a-z0-9_-]+$/i, 'letters, digits, _ and - only')
    .default('parley'),
  PARLEY_REDIS_TIMEOUT_MS: int(100, 60_000).default(1_000),
  PARLEY_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** `auto`: readable lines when stdout is a terminal, JSON otherwise. */
  PARLEY_LOG_FORMAT: z.enum(['auto', 'json', 'pretty']).default('auto'),
  PARLEY_JSON_LIMIT_BYTES: int(1024, 64 * 1024 * 1024).default(1024 * 1024),
  PARLEY_TRUST_PROXY: bool.default(false),
  PARLEY_SHUTDOWN_TIMEOUT_MS: int(0, 600_000).default(15_000),
  PARLEY_RATE_LIMIT_RPM: int(1, 1_000_000).default(60),
  PARLEY_RATE_LIMIT_BURST: int(1, 1_000_000).default(10),
  PARLEY_ESPEAK_BIN: z.string().default('espeak-ng'),
  PARLEY_FLITE_BIN: z.string().default('flite'),
  PARLEY_MAX_MESSAGE_CHARS: int(1, 100_000).default(4_000),
  PARLEY_CHAT_IDLE_TIMEOUT_MS: int(1_000, 7 * 24 * 3_600_000).default(600_000),
  PARLEY_SESSION_SWEEP_INTERVAL_MS: int(100, 3_600_000).default(10_000),
  /** A whole LLM call, first token to last. */
  PARLEY_LLM_TIMEOUT_MS: int(100, 600_000).default(30_000),
  /** A transcription, whole; one sentence's speech, whole. */
  PARLEY_STT_TIMEOUT_MS: int(100, 600_000).default(30_000),
  PARLEY_TTS_TIMEOUT_MS: int(100, 600_000).default(30_000),
  /** The longest wait for TTS audio's first chunk, and between two chunks of streamed TTS audio or LLM tokens. */
  PARLEY_PROVIDER_STALL_MS: int(100, 600_000).default(10_000),
  PARLEY_LLM_HISTORY_MESSAGES: int(0, 200).default(20),
  PARLEY_ALLOW_HTTP_TOOLS: bool.default(false),
  PARLEY_EVENT_RETRY_BASE_MS: int(10, 600_000).default(1_000),
  PARLEY_EVENT_TIMEOUT_MS: int(100, 120_000).default(10_000),
  PARLEY_EVENT_CONCURRENCY: int(1, 256).default(16),
  PARLEY_EVENT_RELAY_INTERVAL_MS: int(10, 600_000).default(1_000),
  /** BullMQ's lock on an event delivery (lockDuration, and the stalled check): how soon a killed process's deliveries run elsewhere. */
  PARLEY_EVENT_LOCK_MS: int(1_000, 600_000).default(30_000),
  /** Unset: recordings under PARLEY_DATA_DIR/recordings; `s3://…`: in that bucket (spooled on disk during the call). */
  PARLEY_RECORDINGS_URL: optionalString.transform((v, ctx) => {
    if (v === undefined) return undefined;
    const parsed = parseRecordingsUrl(v);
    if (typeof parsed !== 'string') return parsed;
    ctx.addIssue({ code: 'custom', message: parsed });
    return z.NEVER;
  }),
  /** The bucket's credentials (both or neither; neither: the AWS SDK's default chain, AWS_ACCESS_KEY_ID… or a role). */
  PARLEY_RECORDINGS_ACCESS_KEY_ID: optionalString,
  PARLEY_RECORDINGS_SECRET_ACCESS_KEY: optionalString,
  /** How often the recordings sweep runs: retention, and (with a bucket) uploading what is left in the spool. */
  PARLEY_RECORDINGS_SWEEP_INTERVAL_MS: int(100, 86_400_000).default(3_600_000),
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
  PARLEY_LLAMA_SEQUENCES: int(1, 64).default(4),
  PARLEY_LLAMA_CONTEXT_SIZE: int(512, 131_072).default(4096),
  PARLEY_LLAMA_THREADS: int(1, 256).optional(),
  PARLEY_LLAMA_GPU: z.enum(['auto', 'off']).default('auto'),
  PARLEY_POCKETSPHINX_MODEL_DIR: z.string().default('/usr/share/pocketsphinx/model/en-us'),
  PARLEY_POCKETSPHINX_DECODERS: int(1, 256).default(8),
  PARLEY_POCKETSPHINX_THREADS: int(1, 64).optional(),
  /** STT provider `deepgram`: the key (`Authorization: Token …`); a self-hosted Deepgram needs none. */
  PARLEY_DEEPGRAM_API_KEY: optionalString,
  /** Deepgram's address (unset: its hosted API); query parameters in it go with every stream. */
  PARLEY_DEEPGRAM_URL: optionalUrl(['ws:', 'wss:', 'http:', 'https:']),
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
  /** STT `openai-realtime`: the Realtime endpoint (its `?intent=transcription` is added); unset: OpenAI's. */
  PARLEY_OPENAI_REALTIME_URL: optionalUrl(['ws:', 'wss:']),
  /** TTS provider `elevenlabs`: its API key (unset: not configured) and where its API is (a ws:/wss: origin). */
  PARLEY_ELEVENLABS_API_KEY: optionalString,
  PARLEY_ELEVENLABS_URL: optionalUrl(['ws:', 'wss:']).transform((v) => v ?? 'wss://api.elevenlabs.io'),
  LIVEKIT_URL: optionalUrl(['ws:', 'wss:', 'http:', 'https:']),
  LIVEKIT_API_KEY: optionalString,
  LIVEKIT_API_SECRET: optionalString,
  TWILIO_AUTH_TOKEN: optionalString,
  TWILIO_ACCOUNT_SID: optionalString.refine((v) => v === undefined || /^AC[0-9a-fA-F]{32}$/.test(v), {
    message: 'must be a Twilio account SID (AC followed by 32 hex digits)',
  }),
  /** Twilio's REST API (outbound calls, hang-up, transfer); a fake's address in tests. */
  PARLEY_TWILIO_API_BASE_URL: optionalUrl(['http:', 'https:']).transform((v) => v ?? 'https://api.twilio.com'),
  /** Phone calls: mute the agent's own echo in what the caller sends (audio/echo-guard.ts). */
  PARLEY_TWILIO_ECHO_GUARD: bool.default(true),
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

/** The parsed environment (what src/config/config.ts turns into the Config). */
export type Env = z.infer<typeof envSchema>;

/** The environment did not parse: one readable line per bad variable. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.join('\n')}`);
    this.name = 'ConfigError';
  }
}
