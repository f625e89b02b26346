import type { Server } from 'node:http';
import type { Logger } from 'pino';
import type { Config } from './config/config.js';
import { createApp, type ParleyApp } from './http/app.js';
import { answerClientErrors } from './http/client-error.js';
import { Metrics } from './metrics/process-metrics.js';
import { Embedders } from './rag/embedding/embedders.js';
import { ProviderSet, type SpeechProviders } from './providers/speech-providers.js';
import { MediaServer } from './realtime/websocket/media-server.js';
import { TwilioMediaServer } from './realtime/telephony/media-stream-server.js';
import { twilioMediaPath } from './telephony/call-sessions.js';
import { twilioRestClient } from './telephony/twilio/rest-config.js';
import { ProviderRegistry, type ProviderRegistryOptions } from './providers/registry.js';
import { closeRedis, connectRedis, type Redis } from './store/redis.js';
import { Store } from './store/store.js';
import { llmProviders } from './providers/llm-providers.js';
import { createServices, type Services } from './services.js';
import { logCapabilities } from './providers/built-in/capability-log.js';
import type { LivekitPlaneOverrides } from './realtime/livekit/livekit-plane.js';

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
  /**
   * Whether this process says what the server uses (providers, Smart Turn, phone calls) at start;
   * default true. A cluster's other workers are the same server, so only the first one does.
   */
  reportsStartup?: boolean;
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
  const llms = llmProviders(config, registry, logger);
  // What this server uses is said once: by the single process, or by a cluster's first worker.
  const said = options.reportsStartup === false ? logger.child({}, { level: 'silent' }) : logger;
  // The built-in preset as start-up finds it, said in the log: one line per capability.
  logCapabilities(said, await registry.builtIn(), await registry.usability(), config.rag.embedding);
  const services = await createServices({
    config,
    store,
    logger,
    registry,
    speech,
    embedders,
    llms,
    metrics: metrics.operator,
    livekitOverrides: options.livekit,
  });
  const media = new MediaServer({ store, tokens: services.mediaTokens, supervisor: services.supervisor, logger });
  const phoneMedia = new TwilioMediaServer({
    store,
    tokens: services.mediaTokens,
    supervisor: services.supervisor,
    logger,
    configured: config.twilio.authToken !== undefined,
    carrier: twilioRestClient(config.twilio),
    echoGuard: config.twilio.echoGuard,
  });
  if (services.endOfTurnModel === null)
    said.info(
      { modelsDir: config.modelsDir },
      'no Smart Turn model in MODELS_DIR: endpointing reads silence and words only',
    );
  else said.info({ model: services.endOfTurnModel.label }, 'Smart Turn model loaded: smart endpointing consults it');
  said.info(
    config.twilio.authToken === undefined
      ? 'phone calls (Twilio Media Streams): not configured (set TWILIO_AUTH_TOKEN)'
      : 'phone calls (Twilio Media Streams): POST /telephony/v1/twilio/voice',
  );
  services.outbox.startWorker();
  services.outbox.startRelay();
  services.sweeper.start();
  services.supervisor.start();
  services.reaper.start();
  services.rag.start();
  services.analysis.start();
  services.livekit.start();
  services.recordings.start();
  services.agentTests.start();
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
        media.attach(s, { [twilioMediaPath]: (req, socket, head) => phoneMedia.upgrade(req, socket, head) });
        s.once('error', reject);
        s.once('listening', () => {
          const address = s.address();
          const bound = typeof address === 'object' && address !== null ? address.port : port;
          services.livekit.listening(bound);
          resolve(bound);
        });
      }),
    close: async () => {
      // LiveKit stops taking jobs and lets its sessions finish (up to the drain timeout); then every
      // voice session ends cleanly (records and session_end events), then HTTP stops.
      // Agent test runs stop first (stored `error`), so their calls end with the others below.
      await services.agentTests.close();
      await services.livekit.drain(config.drainTimeoutMs);
      await services.supervisor.drain(config.shutdownTimeoutMs);
      // Voice records still retrying (Redis was away) get their bounded chance before Redis closes.
      await services.recorder.drain(config.shutdownTimeoutMs);
      media.close();
      phoneMedia.close();
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
      await services.recordings.stop();
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
