import { Keys } from './keys.js';
import type { Redis } from './redis.js';
import { AgentTestRepository } from './repositories/agent-tests.js';
import { AgentRepository } from './repositories/agents.js';
import { ConversationRecordingRepository } from './repositories/conversation-recordings.js';
import { ConversationRepository } from './repositories/conversations.js';
import { DocumentRepository } from './repositories/documents.js';
import { ErrorRepository } from './repositories/errors.js';
import { LivekitRepository } from './repositories/livekit.js';
import { OutboxRepository } from './repositories/outboxes.js';
import { PresetRepository } from './repositories/presets.js';
import { RateLimitRepository } from './repositories/rate-limits.js';
import { SessionLeaseRepository } from './repositories/session-leases.js';
import { SessionRepository } from './repositories/sessions.js';

/** The repositories over one Redis connection; the only way the rest of Parley touches Redis. */
export class Store {
  readonly keys: Keys;
  readonly agents: AgentRepository;
  readonly presets: PresetRepository;
  readonly sessions: SessionRepository;
  readonly conversations: ConversationRepository;
  readonly conversationRecordings: ConversationRecordingRepository;
  readonly errors: ErrorRepository;
  readonly documents: DocumentRepository;
  readonly leases: SessionLeaseRepository;
  readonly livekit: LivekitRepository;
  readonly rateLimits: RateLimitRepository;
  readonly outboxes: OutboxRepository;
  readonly agentTests: AgentTestRepository;

  constructor(
    readonly redis: Redis,
    prefix: string,
  ) {
    this.keys = new Keys(prefix);
    this.agents = new AgentRepository(redis, this.keys);
    this.presets = new PresetRepository(redis, this.keys);
    this.sessions = new SessionRepository(redis, this.keys, this.agents);
    this.conversations = new ConversationRepository(redis, this.keys);
    this.conversationRecordings = new ConversationRecordingRepository(redis, this.keys);
    this.errors = new ErrorRepository(redis, this.keys, this.agents);
    this.documents = new DocumentRepository(redis, this.keys);
    this.leases = new SessionLeaseRepository(redis, this.keys);
    this.livekit = new LivekitRepository(redis, this.keys);
    this.rateLimits = new RateLimitRepository(redis, this.keys);
    this.outboxes = new OutboxRepository(redis);
    this.agentTests = new AgentTestRepository(redis, this.keys);
  }

  /** Round-trip time to Redis in ms; throws when Redis is unreachable. */
  async ping(): Promise<number> {
    const start = performance.now();
    await this.redis.ping();
    return performance.now() - start;
  }
}
