import { SentenceEndLm } from './pipeline/turn/sentence-end-lm.js';
import { modelFiles } from './providers/pocketsphinx/sphinx-options.js';
import { defaultLibraries } from './providers/pocketsphinx/sphinx-library.js';
import type { Logger } from 'pino';
import { AgentTestRunner } from './agent-tests/test-runner.js';
import { FliteTts } from './providers/flite/flite-tts.js';
import { PipelineSettingsOf } from './agents/pipeline-settings.js';
import { ProviderDemand } from './agents/provider-demand.js';
import { AgentReadiness } from './agents/readiness.js';
import { PostCallAnalysis } from './analysis/post-call-analysis.js';
import { ChatService } from './chat/chat-service.js';
import type { Config } from './config/config.js';
import { EventOutbox } from './events/outbox.js';
import type { OperatorMetrics } from './metrics/operator-metrics.js';
import { loadSmartTurn, type SmartTurnModel } from './pipeline/turn/smart-turn.js';
import { SileroVad } from './pipeline/vad/silero-vad.js';
import type { Embedders } from './rag/embedding/embedders.js';
import type { LlmProviders } from './providers/llm-providers.js';
import type { ProviderRegistry } from './providers/registry.js';
import type { SpeechProviders } from './providers/speech-providers.js';
import { RagService } from './rag/rag-service.js';
import { TokenBucket } from './ratelimit/token-bucket.js';
import { LivekitPlane, type LivekitPlaneOverrides } from './realtime/livekit/livekit-plane.js';
import { MediaTokens } from './realtime/websocket/media-token.js';
import { Responder } from './respond/responder.js';
import { IdleSweeper } from './sessions/idle-sweeper.js';
import { SessionReaper } from './sessions/session-reaper.js';
import { SessionSupervisor } from './sessions/supervisor.js';
import { VoiceSessions } from './realtime/session-grants.js';
import { CallSessions } from './telephony/call-sessions.js';
import { VoiceSession } from './sessions/voice-session.js';
import type { Store } from './store/store.js';
import { createTurnRecorder, type SessionRecorder } from './session-writes/turn-recorder.js';
import { RecordingBucket } from './call-recordings/recording-bucket.js';
import { Recordings } from './call-recordings/recordings.js';
import { join } from 'node:path';

/** The domain services behind the SDK API, built once per process. */
export interface Services {
  rateLimit: TokenBucket;
  outbox: EventOutbox;
  /** Every write of a session, a turn or a session's end, each with its event, atomically (chat, voice, sweeper). */
  recorder: SessionRecorder;
  responder: Responder;
  chat: ChatService;
  voice: VoiceSessions;
  /** Phone calls: a voice session per Twilio call (the voice webhook). */
  calls: CallSessions;
  sweeper: IdleSweeper;
  vad: SileroVad;
  /** Smart Turn v3 when its file is in MODELS_DIR (consulted by smart endpointing); null without it. */
  endOfTurnModel: SmartTurnModel | null;
  speech: SpeechProviders;
  /** An agent's STT, LLM and TTS settings: its preset's, or the built-in preset's. */
  settings: PipelineSettingsOf;
  /** Whether an agent can serve voice and chat here, and why not. */
  readiness: AgentReadiness;
  /** Which agents need which provider (/health/providers). */
  demand: ProviderDemand;
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
  /** Call recordings under PARLEY_DATA_DIR/recordings, and their retention sweep (src/call-recordings). */
  recordings: Recordings;
  /** Agent tests: scripted callers played through the voice path, results per expectation (src/agent-tests). */
  agentTests: AgentTestRunner;
}

/** What the services are built on: opened by openParley (src/parley.ts). */
export interface ServiceParts {
  config: Config & { redisUrl: string; adminApiKey: string };
  store: Store;
  logger: Logger;
  registry: ProviderRegistry;
  speech: SpeechProviders;
  embedders: Embedders;
  llms: LlmProviders;
  metrics: OperatorMetrics;
  livekitOverrides?: LivekitPlaneOverrides | undefined;
}

export async function createServices(parts: ServiceParts): Promise<Services> {
  const { config, store, logger, registry, speech, embedders, llms, metrics, livekitOverrides } = parts;
  // Agents without a preset run the built-in one: per capability what is usable on this box.
  const settings = new PipelineSettingsOf(store, () => registry.builtIn());
  const readiness = new AgentReadiness(registry, settings);
  // One VAD worker per process: every voice session's windows run there in shared batches.
  const vad = await SileroVad.load({ logger, silenceFloorDbfs: config.vadSilenceFloorDbfs });
  const endOfTurnModel = await loadSmartTurn(config.modelsDir, logger);
  const sentenceEnds = SentenceEndLm.open(
    modelFiles(config.pocketsphinx.modelDir).lm,
    defaultLibraries.sphinxbase,
    logger,
  );
  const outbox = new EventOutbox({
    redisUrl: config.redisUrl,
    prefix: config.redisPrefix,
    store,
    logger,
    retryBaseMs: config.events.retryBaseMs,
    timeoutMs: config.events.timeoutMs,
    concurrency: config.events.concurrency,
    relayIntervalMs: config.events.relayIntervalMs,
    lockMs: config.events.lockMs,
    metrics,
  });
  const analysis = new PostCallAnalysis({
    redisUrl: config.redisUrl,
    prefix: config.redisPrefix,
    store,
    settings,
    outbox,
    logger,
    llmFor: (llm) => llms.llm(llm),
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
    settings,
    logger,
    llmFor: (llm) => llms.llm(llm),
    llmTimeoutMs: config.llm.timeoutMs,
    stallMs: config.llm.stallMs,
    historyMessages: config.llm.historyMessages,
    metrics,
    recorder,
    allowHttpTools: config.tools.allowHttp,
    readiness,
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
  const { bucket, sweepIntervalMs } = config.recordings;
  const recordings = new Recordings({
    dir: join(config.dataDir, 'recordings'),
    store,
    logger,
    sweepIntervalMs,
    bucket: bucket === undefined ? undefined : await RecordingBucket.create(bucket, logger),
  });
  const voiceDeps = {
    store,
    outbox,
    responder,
    settings,
    speech,
    vad,
    rag,
    logger,
    recorder,
    endOfTurn: endOfTurnModel ?? undefined,
    sentenceEnds: sentenceEnds ?? undefined,
    recordings,
    limits: config.speechLimits,
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
  const rateLimit = new TokenBucket(store.rateLimits, config.rateLimit);
  const voice = new VoiceSessions({
    store,
    recorder,
    livekit:
      url !== undefined && apiKey !== undefined && apiSecret !== undefined ? { url, apiKey, apiSecret } : undefined,
    tokenTtlS: config.livekitTokenTtlS,
    connectWindowMs: config.voiceConnectWindowMs,
    mediaTokens,
    publicUrl: config.publicUrl,
    livekitAgentName: config.livekit.agentName,
  });
  const agentTests = new AgentTestRunner({
    store,
    voice,
    rateLimit,
    settings,
    llmFor: (llm) => llms.llm(llm),
    llmTimeoutMs: config.llm.timeoutMs,
    // The simulated caller speaks with flite's default voice (16 kHz), whatever the agent's preset says.
    callerVoice: { tts: new FliteTts({ bin: config.fliteBin }), model: 'flite', voice: 'slt' },
    logger,
  });
  return {
    agentTests,
    vad,
    endOfTurnModel,
    speech,
    settings,
    readiness,
    demand: new ProviderDemand(store, readiness, () => registry.modelsKey()),
    mediaTokens,
    supervisor,
    reaper,
    livekit: new LivekitPlane({
      config,
      store,
      outbox,
      recorder,
      supervisor,
      logger,
      instanceId: supervisor.holder,
      overrides: livekitOverrides,
    }),
    rateLimit,
    outbox,
    recorder,
    responder,
    rag,
    analysis,
    recordings,
    chat: new ChatService({ store, responder, recorder, logger, rag }),
    voice,
    calls: new CallSessions({
      store,
      recorder,
      tokens: mediaTokens,
      tokenTtlS: config.livekitTokenTtlS,
      connectWindowMs: config.voiceConnectWindowMs,
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
