/**
 * The Admin API's records as the panel reads them off the wire (see /openapi.json). Written out
 * here rather than imported from src/records: those are zod schemas for the server, and browser
 * code imports nothing of the server's.
 */

export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

export interface Agent {
  id: string;
  name: string;
  description: string;
  mode: 'enhanced' | 'passthrough';
  preset_id: string | null;
  system_prompt: string;
  greeting: string | null;
  language: string;
  webhook_url: string | null;
  has_webhook_api_key: boolean;
  webhook_timeout_ms: number;
  events_url: string | null;
  rag_enabled: boolean;
  agent_token: string;
  metadata: Record<string, string | number | boolean | null>;
  created_at: string;
  updated_at: string;
  /** Whether voice and chat sessions can run with this agent's settings here (absent on older servers). */
  readiness?: AgentReadiness;
}

export interface ChannelReadiness {
  ready: boolean;
  problems: string[];
}

export interface AgentReadiness {
  voice: ChannelReadiness;
  chat: ChannelReadiness;
}

/** POST and PATCH answers: the agent, and what in its settings will not work here. */
export type SavedAgent = Agent & { warnings?: string[] };

/** One capability of the built-in preset, the one agents without a preset use. */
export interface BuiltInChoice {
  provider: string;
  model: string;
  usable: boolean;
  problem: string | null;
}

/** GET /health/providers; `built_in` and `needed_by` are absent on older servers. */
export interface ProvidersHealth {
  status: 'ok' | 'degraded';
  built_in?: { stt: BuiltInChoice; llm: BuiltInChoice; tts: BuiltInChoice };
  providers: {
    capability: string;
    provider: string;
    status: 'ok' | 'not_configured' | 'error';
    latency_ms: number | null;
    detail: string | null;
    /** `unserved`: of the agents needing it, those it cannot serve here (absent on older servers). */
    needed_by?: { count: number; unserved?: number; agents: { id: string; name: string }[] };
  }[];
}

export interface AgentStats {
  agent_id: string;
  sessions: { total: number; active: number; chat: number; voice: number };
  messages: { user: number; agent: number };
  turns: number;
  interrupted_turns: number;
  errors: { total: number; open: number };
  avg_response_ms: number | null;
  last_active_at: string | null;
}

interface ProviderSettings {
  provider: string;
  model: string;
}

export interface Preset {
  id: string;
  name: string;
  description: string;
  stt: ProviderSettings & { language: string | null };
  llm: ProviderSettings & { temperature: number; max_tokens: number };
  tts: ProviderSettings & { voice: string; speed: number };
  /** Null: the deployment's PARLEY_EMBEDDING_PROVIDER / PARLEY_EMBEDDING_MODEL. */
  embeddings: ProviderSettings | null;
  agent_count: number;
  created_at: string;
  updated_at: string;
}

export interface ProviderAvailability {
  capability: 'stt' | 'llm' | 'tts' | 'embeddings';
  provider: string;
  label: string;
  kind: 'remote' | 'local' | 'binary';
  models: string[];
  default_model: string | null;
  voices: string[];
  default_voice: string | null;
  any_model: boolean;
  configured: boolean;
  reason: string | null;
}

export interface Session {
  id: string;
  agent_id: string;
  type: 'chat' | 'voice';
  transport: string;
  status: 'active' | 'ended';
  user_id: string | null;
  conversation_id: string;
  room: string | null;
  turns: number;
  started_at: string;
  last_activity_at: string;
  ended_at: string | null;
  end_reason: string | null;
  duration_ms: number | null;
}

export interface SessionOverview {
  total: number;
  active: number;
  ended: number;
  by_type: { chat: number; voice: number };
  by_end_reason: Record<string, number>;
  avg_duration_ms: number | null;
  turns: number;
  started_last_24h: number;
}

export interface Conversation {
  id: string;
  agent_id: string;
  session_id: string;
  user_id: string | null;
  message_count: number;
  created_at: string;
  updated_at: string;
  last_message_at: string | null;
}

export interface Message {
  id: string;
  conversation_id: string;
  role: 'user' | 'agent' | 'tool';
  text: string;
  status: 'complete' | 'interrupted' | 'failed';
  created_at: string;
  /** On `tool` messages: the call (see the README, Tools). */
  tool_call?: {
    call_id: string;
    name: string;
    arguments: unknown;
    result?: unknown;
    error?: { code: string; message: string };
    latency_ms: number;
  };
  /** Milliseconds per stage: endpointing_ms, stt_ms, response_ms, first_audio_ms, end_to_end_ms, … */
  timings: Record<string, number> | null;
  error_id: string | null;
}

export interface ConversationWithMessages extends Conversation {
  messages: Message[];
  messages_cursor: string | null;
}

export interface ErrorRecord {
  id: string;
  type: string;
  message: string;
  agent_id: string | null;
  session_id: string | null;
  status_code: number | null;
  latency_ms: number | null;
  details: Record<string, unknown>;
  status: 'open' | 'resolved';
  resolved_at: string | null;
  resolution_note: string | null;
  created_at: string;
}

export interface ErrorSummary {
  total: number;
  open: number;
  resolved: number;
  by_type: Record<string, { total: number; open: number }>;
  last_24h: number;
}

export interface DocumentRecord {
  id: string;
  agent_id: string;
  name: string;
  type: string;
  size_bytes: number;
  chunk_count: number;
  status: 'processing' | 'ready' | 'failed';
  error: string | null;
  created_at: string;
  updated_at: string;
}

export interface SearchHit {
  chunk_id: string;
  document_id: string;
  document_name: string;
  text: string;
  score: number;
}

interface LatencySummary {
  count: number;
  p50_ms: number | null;
  p90_ms: number | null;
}

/** GET /health/metrics (JSON); `turns` comes with the operator metrics (absent on older servers). */
export interface MetricsJson {
  uptime_s: number;
  cpu: { percent: number };
  event_loop: { lag_p99_ms: number };
  redis: { ok: boolean; latency_ms: number | null };
  sessions: { live: number | null };
  turns?: {
    total: number;
    latency: Record<'endpointing' | 'stt' | 'response' | 'first_audio' | 'end_to_end', LatencySummary>;
  };
}

/** GET /admin/v1/livekit/rooms (503 `livekit_unavailable` without LiveKit). */
export interface LivekitRoom {
  name: string;
  sid: string;
  num_participants: number;
  created_at: string;
  duration_ms: number;
  session: { id: string; agent_id: string; status: string; user_id: string | null; turns: number } | null;
  job: { job_id: string; worker_id: string | null; instance_id: string } | null;
}

/** GET /admin/v1/livekit/worker-status (answers without LiveKit too). */
export interface LivekitWorkerStatus {
  livekit: { configured: boolean; url: string | null; agent_name: string; message: string };
  instances: {
    instance_id: string;
    version: string;
    livekit: { state: string; reason: string | null; worker_id: string | null; jobs: number };
    sessions: { livekit: number; websocket: number; total: number };
    load: number;
    capacity: number;
    draining: boolean;
    last_heartbeat_at: string;
  }[];
  totals: { instances: number; registered: number; sessions: number; capacity: number };
}
