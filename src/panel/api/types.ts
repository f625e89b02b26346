/** Record shapes the panel reads, taken from the server's own zod-derived types (erased at build). */
export type { Agent, AgentStats } from '../../records/agent.js';
export type { Preset } from '../../records/preset.js';
export type { Session, SessionOverview } from '../../records/session.js';
export type { Conversation, ConversationWithMessages, Message } from '../../records/conversation.js';
export type { ErrorRecord, ErrorSummary } from '../../records/error-record.js';
export type { DocumentRecord, SearchHit } from '../../records/document.js';

export interface Page<T> {
  data: T[];
  next_cursor: string | null;
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

/** GET /health/metrics (JSON). */
export interface MetricsJson {
  uptime_s: number;
  cpu: { percent: number };
  event_loop: { lag_p99_ms: number };
  redis: { ok: boolean; latency_ms: number | null };
  sessions: { live: number | null };
}
