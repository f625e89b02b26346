import type { Logger } from 'pino';
import { ChatService } from './chat/chat-service.js';
import type { Config } from './config.js';
import { EventOutbox } from './events/outbox.js';
import { OpenAiLlm } from './providers/openai/openai-llm.js';
import { RagService } from './rag/rag-service.js';
import { TokenBucket } from './ratelimit/token-bucket.js';
import { VoiceSessions } from './realtime/voice-sessions.js';
import { LivekitPlane, type LivekitPlaneOverrides } from './realtime/livekit/livekit-plane.js';
import { Responder } from './respond/responder.js';
import { SileroVad } from './pipeline/vad/silero-vad.js';
import type { SpeechProviders } from './providers/speech-providers.js';
import { MediaTokens } from './realtime/websocket/media-token.js';
import { IdleSweeper } from './sessions/idle-sweeper.js';
import { SessionSupervisor } from './sessions/supervisor.js';
import type { Store } from './store/store.js';

/** The domain services behind the SDK API, built once per process. */
export interface Services {
  rateLimit: TokenBucket;
  outbox: EventOutbox;
  responder: Responder;
  chat: ChatService;
  voice: VoiceSessions;
  sweeper: IdleSweeper;
  vad: SileroVad;
  speech: SpeechProviders;
  mediaTokens: MediaTokens;
  supervisor: SessionSupervisor;
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
  });
  const llm = new OpenAiLlm({ apiKey: config.openai.apiKey, baseUrl: config.openai.baseUrl });
  const responder = new Responder({
    store,
    logger,
    llmFor: () => llm,
    llmTimeoutMs: config.llm.timeoutMs,
    historyMessages: config.llm.historyMessages,
  });
  const rag = new RagService({
    config: config.rag,
    modelsDir: config.modelsDir,
    redisUrl: config.redisUrl,
    prefix: config.redisPrefix,
    store,
    logger,
    outbox,
  });
  const { url, apiKey, apiSecret } = config.livekit;
  const mediaTokens = new MediaTokens(config.adminApiKey);
  const supervisor = new SessionSupervisor({ store, outbox, responder, speech, vad, rag, logger }, logger);
  return {
    vad,
    speech,
    mediaTokens,
    supervisor,
    livekit: new LivekitPlane({ config, store, outbox, supervisor, logger, overrides: livekitOverrides }),
    rateLimit: new TokenBucket(store.redis, store.keys, config.rateLimit),
    outbox,
    responder,
    rag,
    chat: new ChatService({ store, responder, outbox, logger, rag }),
    voice: new VoiceSessions({
      store,
      outbox,
      livekit:
        url !== undefined && apiKey !== undefined && apiSecret !== undefined ? { url, apiKey, apiSecret } : undefined,
      tokenTtlS: config.livekitTokenTtlS,
      mediaTokens,
      publicUrl: config.publicUrl,
      livekitAgentName: config.livekit.agentName,
    }),
    sweeper: new IdleSweeper({
      store,
      outbox,
      logger,
      chatIdleTimeoutMs: config.chatIdleTimeoutMs,
      intervalMs: config.sessionSweepIntervalMs,
    }),
  };
}
