import type { Logger } from 'pino';
import type { DocumentRepository } from '../store/repositories/documents.js';
import { AgentIndex } from './agent-index.js';

/**
 * The in-process indexes of every agent with documents, kept in step with Redis by a per-agent
 * version counter (`agentRagVersion`), which every change to the searchable set bumps atomically
 * with the change itself. Before each search the index reads the counter (one GET); when it moved,
 * it drops documents that are gone and loads the new ones. That holds across instances without
 * pub/sub (no message to miss during a reconnect), at the cost of one round trip per search.
 */
export class RagIndex {
  private readonly indexes = new Map<string, AgentIndex>();
  private readonly syncing = new Map<string, Promise<AgentIndex>>();

  constructor(
    private readonly documents: DocumentRepository,
    private readonly logger: Logger,
  ) {}

  /** The agent's index, brought up to date with Redis first. */
  async forAgent(agentId: string): Promise<AgentIndex> {
    const version = await this.documents.version(agentId);
    const current = this.indexes.get(agentId);
    if (current !== undefined && current.version === version) return current;
    let running = this.syncing.get(agentId);
    if (running === undefined) {
      running = this.sync(agentId, version).finally(() => this.syncing.delete(agentId));
      this.syncing.set(agentId, running);
    }
    return running;
  }

  /** Loads every agent's index (on start), so the first search does not pay for it. */
  async warm(): Promise<void> {
    for (const agentId of await this.documents.agentsWithDocuments()) {
      try {
        await this.forAgent(agentId);
      } catch (err) {
        this.logger.warn({ err, agent_id: agentId }, 'could not load RAG index');
      }
    }
  }

  /** Chunks held for an agent (0 when not loaded). */
  loadedChunks(agentId: string): number {
    return this.indexes.get(agentId)?.chunkCount ?? 0;
  }

  private async sync(agentId: string, version: number): Promise<AgentIndex> {
    const index = this.indexes.get(agentId) ?? new AgentIndex();
    const ready = new Set((await this.documents.all(agentId)).filter((d) => d.status === 'ready').map((d) => d.id));
    for (const id of index.documentIds()) if (!ready.has(id)) index.removeDocument(id);
    const missing = new Set([...ready].filter((id) => !index.hasDocument(id)));
    if (missing.size > 0) {
      for (const { document, chunks, vectors } of await this.documents.loadReady(agentId, missing)) {
        index.addDocument(document, chunks, vectors);
      }
    }
    index.version = version;
    if (index.documentIds().length === 0) this.indexes.delete(agentId);
    else this.indexes.set(agentId, index);
    return index;
  }
}
