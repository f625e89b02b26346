import type { Server } from 'node:http';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import { createApp, type ParleyApp } from './http/app.js';
import { answerClientErrors } from './http/client-error.js';
import { Metrics } from './metrics/process-metrics.js';
import { Embedders } from './providers/embedders.js';
import { ProviderSet, type SpeechProviders } from './providers/speech-providers.js';
import { MediaServer } from './realtime/websocket/media-server.js';
import { ProviderRegistry, type ProviderRegistryOptions } from './providers/registry.js';
import { closeRedis, connectRedis, type Redis } from './store/redis.js';
import { Store } from './store/store.js';
import { ChatService } from './chat/chat-service.js';
import { EventOutbox } from './events/outbox.js';
import { PostCallAnalysis } from './analysis/post-call-analysis.js';
import { llmProviders, type LlmProviders } from './providers/llm-providers.js';
import { RagService } from './rag/rag-service.js';
import { TokenBucket } from './ratelimit/token-bucket.js';
import { VoiceSessions } from './sessions/voice-grants.js';
import { LivekitPlane, type LivekitPlaneOverrides } from './realtime/livekit/livekit-plane.js';
import { Responder } from './respond/responder.js';
import type { OperatorMetrics } from './metrics/operator-metrics.js';
import { SileroVad } from './pipeline/vad/silero-vad.js';
import { loadSmartTurn, type SmartTurnModel } from './pipeline/turn/smart-turn.js';
import { MediaTokens } from './realtime/websocket/media-token.js';
import { IdleSweeper } from './sessions/idle-sweeper.js';
import { SessionReaper } from './sessions/session-reaper.js';
import { SessionSupervisor } from './sessions/supervisor.js';
import { VoiceSession } from './sessions/voice-session.js';
import { createTurnRecorder, type SessionRecorder } from './turns/turn-recorder.js';

export interface Parley extends ParleyApp {
  config: Config & { adminApiKey: string };
  redis: Redis;
  store: Store;
  registry: ProviderRegistry;
  metrics: Metrics;
  services: Services;
  /** Starts the HTTP server; resolves with the bound port. */
  listen(port?: number, host?: string): Promise<number>;
  /** Stops accepting requests, drains, and closes Redis. */
  close(): Promise<void>;
}

export interface OpenParleyOptions {
  /** Provider registry options (e.g. model folder aliases for test fixtures). */
  providers?: ProviderRegistryOptions;
  /** STT/TTS providers for voice sessions; by default the ones each preset names. */
  speech?: SpeechProviders;
  /** LiveKit seams for tests and benches: how rooms are joined, worker timings. */
  livekit?: LivekitPlaneOverrides;
}

/** Wires one Parley instance: Redis, store, providers, metrics and the HTTP app. Used by main.ts and tests. */
export async function openParley(
  config: Config & { adminApiKey: string; redisUrl: string },
  logger: Logger,
  options: OpenParleyOptions = {},
): Promise<Parley> {
  const redis = await connectRedis({ url: config.redisUrl, logger, timeoutMs: config.redisTimeoutMs });
  const store = new Store(redis, config.redisPrefix);
  const registry = new ProviderRegistry(config, options.providers);
  const metrics = new Metrics(store);
  // Providers we create we also close (their model workers); injected ones belong to the caller.
  const ownSpeech = options.speech === undefined ? new ProviderSet(config, registry) : undefined;
  const speech = options.speech ?? ownSpeech!;
  // Closed by services.rag.close().
  const embedders = new Embedders(config.rag.embedding, (id) => registry.modelDir(id));
  // The LLM of each preset: one OpenAI-compatible client, and GGUF models loaded once per process.
  const llms = llmProviders(config, (id) => registry.modelDir(id), logger);
  const services = await createServices(
    config,
    store,
    logger,
    speech,
    embedders,
    llms,
    metrics.operator,
    options.livekit,
  );
  const media = new MediaServer({ store, tokens: services.mediaTokens, supervisor: services.supervisor, logger });
  services.outbox.startWorker();
  services.outbox.startRelay();
  services.sweeper.start();
  services.supervisor.start();
  services.reaper.start();
  services.rag.start();
  services.analysis.start();
  services.livekit.start();
  const { app, areas, router } = createApp({ config, store, logger, registry, metrics, services });
  let server: Server | undefined;

  return {
    config,
    app,
    areas,
    router,
    redis,
    store,
    registry,
    metrics,
    services,
    listen: (port = config.port, host = config.host) =>
      new Promise((resolve, reject) => {
        const s = app.listen(port, host);
        server = s;
        answerClientErrors(s, logger);
        media.attach(s);
        s.once('error', reject);
        s.once('listening', () => {
          const address = s.address();
          resolve(typeof address === 'object' && address !== null ? address.port : port);
        });
      }),
    close: async () => {
      // LiveKit stops taking jobs and lets its sessions finish (up to the drain timeout); then every
      // voice session ends cleanly (records and session_end events), then HTTP stops.
      await services.livekit.drain(config.drainTimeoutMs);
      await services.supervisor.drain(config.shutdownTimeoutMs);
      // Voice records still retrying (Redis was away) get their bounded chance before Redis closes.
      await services.recorder.drain(config.shutdownTimeoutMs);
      media.close();
      if (server !== undefined) {
        const s = server;
        await new Promise<void>((resolve) => {
          s.close(() => resolve());
          s.closeIdleConnections();
        });
      }
      await services.livekit.close();
      metrics.stop();
      await services.reaper.stop();
      await services.sweeper.stop();
      await services.rag.close();
      await services.endOfTurnModel?.close();
      await services.analysis.close();
      await services.outbox.close();
      await ownSpeech?.close();
      await llms.close();
      closeRedis(redis);
    },
  };
}

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
  /** Smart Turn v3 when its file is in MODELS_DIR (consulted by smart endpointing); null without it. */
  endOfTurnModel: SmartTurnModel | null;
  speech: SpeechProviders;
  mediaTokens: MediaTokens;
  supervisor: SessionSupervisor;
  /** Ends voice sessions never connected or whose owner died (any instance may run it). */
  reaper: SessionReaper;
  /** RAG: documents, ingestion, hybrid search, context for turns. */
  rag: RagService;
  /** LiveKit: agent worker and in-process jobs, server API, instance heartbeats (src/realtime/livekit). */
  livekit: LivekitPlane;
  /** Post-call analysis: durable queue of sessions to summarise, fed by session ends (src/analysis). */
  analysis: PostCallAnalysis;
}

export async function createServices(
  config: Config & { redisUrl: string; adminApiKey: string },
  store: Store,
  logger: Logger,
  speech: SpeechProviders,
  embedders: Embedders,
  llms: LlmProviders,
  metrics: OperatorMetrics,
  livekitOverrides?: LivekitPlaneOverrides,
): Promise<Services> {
  // One VAD worker per process: every voice session's windows run there in shared batches.
  const vad = await SileroVad.load({ logger, silenceFloorDbfs: config.vadSilenceFloorDbfs });
  const endOfTurnModel = await loadSmartTurn(config.modelsDir, logger);
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
  const analysis = new PostCallAnalysis({
    redisUrl: config.redisUrl,
    prefix: config.redisPrefix,
    store,
    outbox,
    logger,
    llmFor: (settings) => llms.llm(settings),
    concurrency: config.analysis.concurrency,
    retryBaseMs: config.analysis.retryBaseMs,
    timeoutMs: config.analysis.timeoutMs,
    relayIntervalMs: config.events.relayIntervalMs,
  });
  const recorder = createTurnRecorder({
    store,
    outbox,
    logger,
    retryWindowMs: config.events.recordRetryMs,
    crashAfter: config.events.crashAfterRecord,
    metrics,
    analysis,
  });
  const responder = new Responder({
    store,
    logger,
    llmFor: (settings) => llms.llm(settings),
    llmTimeoutMs: config.llm.timeoutMs,
    historyMessages: config.llm.historyMessages,
    metrics,
    recorder,
    allowHttpTools: config.tools.allowHttp,
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
  const voiceDeps = {
    store,
    outbox,
    responder,
    speech,
    vad,
    rag,
    logger,
    recorder,
    endOfTurn: endOfTurnModel ?? undefined,
  };
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
    endOfTurnModel,
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
    analysis,
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
