import type { Logger } from 'pino';
import { ChatService } from './chat/chat-service.js';
import type { Config } from './config.js';
import { EventOutbox } from './events/outbox.js';
import { OpenAiLlm } from './providers/openai/openai-llm.js';
import { TokenBucket } from './ratelimit/token-bucket.js';
import { VoiceSessions } from './realtime/voice-sessions.js';
import { Responder } from './respond/responder.js';
import { IdleSweeper } from './sessions/idle-sweeper.js';
import type { Store } from './store/store.js';

/** The domain services behind the SDK API, built once per process. */
export interface Services {
  rateLimit: TokenBucket;
  outbox: EventOutbox;
  responder: Responder;
  chat: ChatService;
  voice: VoiceSessions;
  sweeper: IdleSweeper;
}

export function createServices(config: Config & { redisUrl: string }, store: Store, logger: Logger): Services {
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
  const { url, apiKey, apiSecret } = config.livekit;
  return {
    rateLimit: new TokenBucket(store.redis, store.keys, config.rateLimit),
    outbox,
    responder,
    chat: new ChatService({ store, responder, outbox, logger }),
    voice: new VoiceSessions({
      store,
      outbox,
      livekit: url !== undefined && apiKey !== undefined && apiSecret !== undefined ? { url, apiKey, apiSecret } : undefined,
      tokenTtlS: config.livekitTokenTtlS,
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
