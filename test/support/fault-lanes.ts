import type { AdminClient } from './admin-client.js';
import { laneTool, type FaultUpstream } from './fault-upstream.js';
import { connectVoice, type VoiceClient } from './voice-client.js';

/**
 * A Parley wired to a FaultUpstream: its environment (the upstream as OPENAI_BASE_URL, short
 * timeouts so that a hang costs little), agents whose every upstream call goes to one lane, and
 * voice calls on them. Shared by the fault-injection tests and the soak bench.
 */

/** How long Parley waits for the LLM, the webhook, a tool and STT, and how long a stream may stall. */
export const upstreamTimeoutMs = 1_500;
/** A sentence's speech streams for a while: it gets twice as long. */
export const ttsTimeoutMs = 2 * upstreamTimeoutMs;
/** The stall between the pieces of a `drip`: twice what Parley waits for the next piece or a whole answer. */
export const dripGapMs = 2 * upstreamTimeoutMs;

/** Parley's environment for `upstream`. */
export function faultEnv(upstream: FaultUpstream): Record<string, string> {
  return {
    OPENAI_BASE_URL: upstream.baseUrl,
    OPENAI_API_KEY: 'sk-test',
    PARLEY_LLM_TIMEOUT_MS: String(upstreamTimeoutMs),
    PARLEY_STT_TIMEOUT_MS: String(upstreamTimeoutMs),
    PARLEY_TTS_TIMEOUT_MS: String(ttsTimeoutMs),
    PARLEY_PROVIDER_STALL_MS: String(upstreamTimeoutMs),
    // many sessions and chats on few agents: no rate limit in the way
    PARLEY_RATE_LIMIT_RPM: '100000',
    PARLEY_RATE_LIMIT_BURST: '10000',
  };
}

export interface LaneAgent {
  id: string;
  token: string;
}

export interface VoiceCall {
  client: VoiceClient;
  sessionId: string;
}

export interface LaneAgentSettings {
  mode?: 'enhanced' | 'passthrough';
  /** Offer the lane's tool (`lookup_order`), which the lane's LLM asks for on every user turn. */
  tools?: boolean;
}

/** A preset and an agent whose STT, LLM, TTS, webhook and tool calls all go to `lane`. */
export async function createLaneAgent(
  api: AdminClient,
  upstream: FaultUpstream,
  lane: string,
  settings: LaneAgentSettings = {},
): Promise<LaneAgent> {
  const model = upstream.model(lane);
  const preset = await api.request('POST', '/admin/v1/presets', {
    body: {
      name: `lane ${lane}`,
      stt: { provider: 'openai', model, language: 'en' },
      llm: { provider: 'openai', model },
      tts: { provider: 'openai', model, voice: 'alloy' },
    },
  });
  if (preset.status !== 201) throw new Error(`preset: ${preset.status} ${JSON.stringify(preset.body)}`);
  const tools = settings.tools ? [{ ...laneTool, url: upstream.toolUrl(lane), timeout_ms: upstreamTimeoutMs }] : [];
  const agent = await api.request('POST', '/admin/v1/agents', {
    body: {
      name: `lane ${lane}`,
      mode: settings.mode ?? 'enhanced',
      preset_id: preset.body.id,
      webhook_url: upstream.webhookUrl(lane),
      webhook_timeout_ms: upstreamTimeoutMs,
      tools,
    },
  });
  if (agent.status !== 201) throw new Error(`agent: ${agent.status} ${JSON.stringify(agent.body)}`);
  return { id: agent.body.id as string, token: agent.body.agent_token as string };
}

/** A WebSocket voice session of the agent, connected and `ready`. */
export function openVoiceCall(api: AdminClient, agent: LaneAgent): Promise<VoiceCall> {
  return connectVoice(api, agent.token, { readyTimeoutMs: 10_000 });
}
