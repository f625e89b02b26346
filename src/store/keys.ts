/**
 * Every Redis key name Parley uses, built here and nowhere else. Keys that belong to one entity
 * carry a hash tag (`{agent:<id>}`) so they share a cluster slot.
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

  // conversations
  conversation(id: string): string {
    return this.k(`{conversation:${id}}`);
  }
  conversationMessages(id: string): string {
    return this.k(`{conversation:${id}}`, 'messages');
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

  /** Holder of the generated admin key is a file, not Redis; this key is a liveness probe target. */
  healthProbe(): string {
    return this.k('health');
  }
}
