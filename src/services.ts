import type { Logger } from 'pino';
import { ChatService } from './chat/chat-service.js';
import type { Config } from './config.js';
import { EventOutbox } from './events/outbox.js';
import type { Embedders } from './providers/embedders.js';
import { OpenAiLlm } from './providers/openai/openai-llm.js';
import { RagService } from './rag/rag-service.js';
import { TokenBucket } from './ratelimit/token-bucket.js';
import { VoiceSessions } from './realtime/voice-sessions.js';
import { LivekitPlane, type LivekitPlaneOverrides } from './realtime/livekit/livekit-plane.js';
import { Responder } from './respond/responder.js';
import type { OperatorMetrics } from './metrics/operator-metrics.js';
import { SileroVad } from './pipeline/vad/silero-vad.js';
import type { SpeechProviders } from './providers/speech-providers.js';
import { MediaTokens } from './realtime/websocket/media-token.js';
import { IdleSweeper } from './sessions/idle-sweeper.js';
import { SessionReaper } from './sessions/session-reaper.js';
import { SessionSupervisor } from './sessions/supervisor.js';
import { VoiceSession } from './sessions/voice-session.js';
import type { Store } from './store/store.js';
import { createTurnRecorder, type SessionRecorder } from './turns/turn-recorder.js';

/** The domain services behind the SDK API, built once per process. */
export interface Services {
  rateLimit: TokenBucket;
  outbox: EventOutbox;
  /** Every write of a session, a turn or a session's end, each with its event, atomically (chat, voice, sweeper). */
  recorder: SessionRecorder;
  responder: Responder;
  chat: ChatService;
  voice: VoiceSessions;
  sweeper: IdleSweeper;
  vad: SileroVad;
  speech: SpeechProviders;
  mediaTokens: MediaTokens;
  supervisor: SessionSupervisor;
  /** Ends voice sessions never connected or whose owner died (any instance may run it). */
  reaper: SessionReaper;
  /** RAG: documents, ingestion, hybrid search, context for turns. */
  rag: RagService;
  /** LiveKit: agent worker and in-process jobs, server API, instance heartbeats (src/realtime/livekit). */
  livekit: LivekitPlane;
}

export async function createServices(
  config: Config & { redisUrl: string; adminApiKey: string },
  store: Store,
  logger: Logger,
  speech: SpeechProviders,
  embedders: Embedders,
  metrics: OperatorMetrics,
  livekitOverrides?: LivekitPlaneOverrides,
): Promise<Services> {
  // One Silero session per process, shared by every voice session.
  const vad = await SileroVad.load();
  const outbox = new EventOutbox({
    redisUrl: config.redisUrl,
    prefix: config.redisPrefix,
    store,
    logger,
    retryBaseMs: config.events.retryBaseMs,
    timeoutMs: config.events.timeoutMs,
    concurrency: config.events.concurrency,
    relayIntervalMs: config.events.relayIntervalMs,
    metrics,
  });
  const recorder = createTurnRecorder({
    store,
    outbox,
    logger,
    retryWindowMs: config.events.recordRetryMs,
    crashAfter: config.events.crashAfterRecord,
    metrics,
  });
  const llm = new OpenAiLlm({ apiKey: config.openai.apiKey, baseUrl: config.openai.baseUrl });
  const responder = new Responder({
    store,
    logger,
    llmFor: () => llm,
    llmTimeoutMs: config.llm.timeoutMs,
    historyMessages: config.llm.historyMessages,
    metrics,
  });
  const rag = new RagService({
    config: config.rag,
    embedders,
    redisUrl: config.redisUrl,
    redisTimeoutMs: config.redisTimeoutMs,
    prefix: config.redisPrefix,
    store,
    logger,
    outbox,
  });
  const { url, apiKey, apiSecret } = config.livekit;
  const mediaTokens = new MediaTokens(config.adminApiKey);
  const reaper = new SessionReaper({
    store,
    recorder,
    logger,
    intervalMs: config.sessionSweepIntervalMs,
    leaseTtlMs: config.sessionLeaseTtlMs,
  });
  const voiceDeps = { store, outbox, responder, speech, vad, rag, logger, recorder };
  const supervisor = new SessionSupervisor({
    store,
    recorder,
    logger,
    leaseTtlMs: config.sessionLeaseTtlMs,
    start: (agent, session, transport) => VoiceSession.start(voiceDeps, agent, session, transport),
    onExpired: () => reaper.sweepSoon(),
  });
  metrics.countVoiceSessionsWith(() => supervisor.countByTransport());
  return {
    vad,
    speech,
    mediaTokens,
    supervisor,
    reaper,
    livekit: new LivekitPlane({ config, store, outbox, recorder, supervisor, logger, overrides: livekitOverrides }),
    rateLimit: new TokenBucket(store.redis, store.keys, config.rateLimit),
    outbox,
    recorder,
    responder,
    rag,
    chat: new ChatService({ store, responder, recorder, logger, rag }),
    voice: new VoiceSessions({
      store,
      recorder,
      livekit:
        url !== undefined && apiKey !== undefined && apiSecret !== undefined ? { url, apiKey, apiSecret } : undefined,
      tokenTtlS: config.livekitTokenTtlS,
      connectWindowMs: config.voiceConnectWindowMs,
      mediaTokens,
      publicUrl: config.publicUrl,
      livekitAgentName: config.livekit.agentName,
    }),
    sweeper: new IdleSweeper({
      store,
      recorder,
      logger,
      chatIdleTimeoutMs: config.chatIdleTimeoutMs,
      intervalMs: config.sessionSweepIntervalMs,
    }),
  };
}
