/**
 * Every Redis key name Parley uses, built here and nowhere else. Keys that belong to one entity
 * carry a hash tag (`{agent:<id>}`) so they share a cluster slot. On a Redis Cluster the prefix
 * itself is a hash tag (`{parley}`, see config/config.ts) and, being the first, is the one that counts:
 * every key sits in one slot, because scripts write several entities and the global indexes at
 * once (test/unit/cluster-keys.test.ts checks every method here).
 */
export class Keys {
  constructor(readonly prefix: string = 'parley') {}

  private k(...parts: string[]): string {
    return [this.prefix, ...parts].join(':');
  }

  // agents
  agent(id: string): string {
    return this.k(`{agent:${id}}`);
  }
  agentStats(id: string): string {
    return this.k(`{agent:${id}}`, 'stats');
  }
  agentSessions(id: string): string {
    return this.k(`{agent:${id}}`, 'sessions');
  }
  agentActiveSessions(id: string): string {
    return this.k(`{agent:${id}}`, 'sessions', 'active');
  }
  agentConversations(id: string): string {
    return this.k(`{agent:${id}}`, 'conversations');
  }
  agentErrors(id: string): string {
    return this.k(`{agent:${id}}`, 'errors');
  }
  agentIndex(): string {
    return this.k('agents');
  }
  /** Phone number (E.164) → id of the agent answering it: one hash, kept by save_agent/delete_agent. */
  agentPhones(): string {
    return this.k('agent-phones');
  }
  /** Agent token lookup, keyed by the token's SHA-256 so raw tokens are not key names. */
  agentToken(tokenHash: string): string {
    return this.k('agent-token', tokenHash);
  }

  // presets
  preset(id: string): string {
    return this.k(`{preset:${id}}`);
  }
  presetAgents(id: string): string {
    return this.k(`{preset:${id}}`, 'agents');
  }
  presetIndex(): string {
    return this.k('presets');
  }

  // sessions
  session(id: string): string {
    return this.k(`{session:${id}}`);
  }
  sessionIndex(): string {
    return this.k('sessions');
  }
  sessionsActive(): string {
    return this.k('sessions', 'active');
  }
  sessionStats(): string {
    return this.k('sessions', 'stats');
  }
  /** Active sessions of one type (chat | voice), scored by last activity, for the idle sweeper. */
  sessionsActiveOfType(type: string): string {
    return this.k('sessions', 'active', type);
  }
  /** Voice sessions not yet connected (zset scored by their connect deadline, Unix ms). */
  sessionMediaDeadlines(): string {
    return this.k('sessions', 'media-deadlines');
  }
  /** Leases of live voice sessions (zset scored by lease expiry, Unix ms). */
  sessionLeases(): string {
    return this.k('sessions', 'leases');
  }
  /** Holder of each lease (hash session id → instance id, or `reaping:<reason>` while being ended). */
  sessionLeaseHolders(): string {
    return this.k('sessions', 'lease-holders');
  }

  // conversations
  conversation(id: string): string {
    return this.k(`{conversation:${id}}`);
  }
  conversationMessages(id: string): string {
    return this.k(`{conversation:${id}}`, 'messages');
  }
  /** Ids of the conversation's agent messages whose playback is recorded (record_playback). */
  conversationPlayed(id: string): string {
    return this.k(`{conversation:${id}}`, 'played');
  }
  conversationIndex(): string {
    return this.k('conversations');
  }

  // error records
  errorRecord(id: string): string {
    return this.k(`{error:${id}}`);
  }
  errorIndex(): string {
    return this.k('errors');
  }
  errorStats(): string {
    return this.k('errors', 'stats');
  }
  /** Error records of one session (zset by creation time). */
  sessionErrors(sessionId: string): string {
    return this.k(`{session:${sessionId}}`, 'errors');
  }

  /**
   * Transactional event outbox (list of JSON delivery jobs): written in the same script as the
   * record an event announces, moved into the BullMQ delivery queue by the relay.
   */
  eventOutbox(): string {
    return this.k('events', 'outbox');
  }

  /**
   * Post-call analysis requests (list of JSON): written by end_session.lua with the session's end,
   * moved into the BullMQ `analysis` queue by its relay (src/analysis).
   */
  analysisOutbox(): string {
    return this.k('analysis', 'outbox');
  }

  /** Token bucket of one SDK caller (`agent:<id>` or `ip:<address>`). */
  rateLimit(bucket: string): string {
    return this.k('ratelimit', bucket);
  }

  /** Holder of the generated admin key is a file, not Redis; this key is a liveness probe target. */
  healthProbe(): string {
    return this.k('health');
  }

  // documents (RAG): every key of an agent's documents shares the agent's hash tag
  /** Document hash. */
  document(agentId: string, docId: string): string {
    return this.k(`{agent:${agentId}}`, 'doc', docId);
  }
  /** The raw upload, kept only until ingestion finishes. */
  documentRaw(agentId: string, docId: string): string {
    return this.k(`{agent:${agentId}}`, 'doc', docId, 'raw');
  }
  /** JSON array of the document's chunks (text and offsets). */
  documentChunks(agentId: string, docId: string): string {
    return this.k(`{agent:${agentId}}`, 'doc', docId, 'chunks');
  }
  /** Hash chunk id → float32 vector (little-endian blob). */
  documentVectors(agentId: string, docId: string): string {
    return this.k(`{agent:${agentId}}`, 'doc', docId, 'vectors');
  }
  /** Documents of an agent (zset by creation time). */
  agentDocuments(agentId: string): string {
    return this.k(`{agent:${agentId}}`, 'docs');
  }
  /** Hash sha256 → document id, to refuse the same content twice. */
  agentDocumentHashes(agentId: string): string {
    return this.k(`{agent:${agentId}}`, 'docs', 'sha256');
  }
  /** Counter bumped whenever the agent's searchable chunks change; in-process indexes compare it. */
  agentRagVersion(agentId: string): string {
    return this.k(`{agent:${agentId}}`, 'rag', 'version');
  }
  /** Agents that have documents, for warming indexes and resuming ingestion on start. */
  ragAgents(): string {
    return this.k('rag', 'agents');
  }

  // agent tests (repositories/agent-tests.ts): every key of an agent's tests shares the agent's hash tag
  /** Hash test case id → the case (JSON). */
  agentTestCases(agentId: string): string {
    return this.k(`{agent:${agentId}}`, 'tests');
  }
  /** One test run (JSON). */
  agentTestRun(agentId: string, runId: string): string {
    return this.k(`{agent:${agentId}}`, 'test-run', runId);
  }
  /** Test runs of an agent (zset by creation time). */
  agentTestRuns(agentId: string): string {
    return this.k(`{agent:${agentId}}`, 'test-runs');
  }
  /** Runs not finished, of every agent (zset `<agent id>/<run id>` by the runner's last beat, Unix ms). */
  openTestRuns(): string {
    return this.k('test-runs', 'open');
  }

  // LiveKit (repositories/livekit.ts)
  /** Parley instances by last heartbeat (zset, ms), for worker-status. */
  livekitInstances(): string {
    return this.k('livekit', 'instances');
  }
  /** One instance's last heartbeat (JSON, expires when the instance stops beating). */
  livekitInstance(instanceId: string): string {
    return this.k('livekit', 'instance', instanceId);
  }
  /** The session and job a LiveKit room is linked to (hash), while the job runs. */
  livekitRoom(room: string): string {
    return this.k('livekit', 'room', room);
  }
}
