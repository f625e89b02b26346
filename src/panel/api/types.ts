/**
 * The Admin API's answers as the panel reads them off the wire (see /openapi.json): taken from the
 * zod schemas the server validates and documents them with (`z.output`), through type-only imports,
 * so no zod and nothing of the server enters the panel's bundle. The LiveKit answers are written
 * out: their schema reads the instance heartbeat's, which sits beside Node-only code.
 */
import type { z } from 'zod';
import type { agentViewSchema, readinessSchema } from '../../http/routes/agents/agents.schema.js';
import type { metricsJsonSchema, providersHealthSchema } from '../../http/routes/health/health.schema.js';
import type { pageSchema } from '../../schemas/common.js';
import type { builtInChoiceSchema, providerAvailabilitySchema } from '../../schemas/preset.js';

export type { AgentStats } from '../../schemas/agent.js';
export type { CaseResult, TestCase, TestRun } from '../../schemas/agent-test.js';
export type { Conversation, ConversationWithMessages, Message } from '../../schemas/conversation.js';
export type { DocumentRecord, SearchHit } from '../../schemas/document.js';
export type { ErrorRecord, ErrorSummary } from '../../schemas/error-record.js';
export type { Preset } from '../../schemas/preset.js';
export type { Session, SessionOverview } from '../../schemas/session.js';

/** Fields the panel copes without (it may be served by a newer build than the server it calls). */
type MayLack<T, K extends keyof T> = Omit<T, K> & Partial<Pick<T, K>>;

/** A page of a list: `data` and the cursor of the next page (null on the last). */
export type Page<T> = Omit<z.output<ReturnType<typeof pageSchema>>, 'data'> & { data: T[] };

type AgentView = z.output<typeof agentViewSchema>;

/** What agent routes answer; `readiness` and `warnings` are absent on older servers. */
export type Agent = MayLack<AgentView, 'readiness' | 'warnings'>;

/** POST and PATCH answers: the agent, and what in its settings will not work here. */
export type SavedAgent = Agent;

export type AgentReadiness = z.output<typeof readinessSchema>;

export type ChannelReadiness = AgentReadiness['voice'];

/** A provider this server offers for a capability: its models and voices, and whether it is configured. */
export type ProviderAvailability = z.output<typeof providerAvailabilitySchema>;

/** One capability of the built-in preset, the one agents without a preset use. */
export type BuiltInChoice = z.output<typeof builtInChoiceSchema>;

type ProvidersHealthView = z.output<typeof providersHealthSchema>;
type ProviderCheck = ProvidersHealthView['providers'][number];
type NeededBy = ProviderCheck['needed_by'];

/** GET /health/providers; `built_in`, `needed_by` and its `unserved` are absent on older servers. */
export type ProvidersHealth = MayLack<Omit<ProvidersHealthView, 'providers'>, 'built_in'> & {
  providers: (Omit<ProviderCheck, 'needed_by'> & { needed_by?: MayLack<NeededBy, 'unserved'> })[];
};

/** GET /health/metrics (JSON); `turns` comes with the operator metrics (absent on older servers). */
export type MetricsJson = MayLack<z.output<typeof metricsJsonSchema>, 'turns'>;

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
    /** The server (host/pid of its primary) the process belongs to: several processes share one with PARLEY_WORKERS > 1. */
    server_id: string;
    http_url: string | null;
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
