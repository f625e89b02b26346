import type { Logger } from 'pino';
import { AppError, ConflictError, NotFoundError } from '../errors.js';
import type { EventOutbox } from '../events/outbox.js';
import type { StoredAgent } from '../records/agent.js';
import type { Responder } from '../respond/responder.js';
import type { RagService } from '../rag/rag-service.js';
import type { Store } from '../store/store.js';

export interface ChatRequest {
  message: string;
  session_id?: string | undefined;
  user_id?: string | undefined;
}

export interface ChatReply {
  session_id: string;
  response: string;
  mode: 'enhanced' | 'passthrough';
}

export interface ChatServiceOptions {
  store: Store;
  responder: Responder;
  outbox: EventOutbox;
  logger: Logger;
  /** RAG context for agents with rag_enabled; without it context stays null. */
  rag?: RagService | undefined;
}

/**
 * POST /sdk/v1/chat: finds or starts the chat session, stores the user's message, gets the answer
 * (webhook or LLM), stores it with its timings, and queues `llm_response` (plus `session_start` for
 * a new session) without waiting for delivery.
 */
export class ChatService {
  constructor(private readonly o: ChatServiceOptions) {}

  async chat(agent: StoredAgent, request: ChatRequest): Promise<ChatReply> {
    const { store, outbox } = this.o;
    const started = performance.now();
    if (agent.mode === 'passthrough' && agent.webhook_url === null) {
      throw new AppError(400, 'webhook_not_configured', 'agent is in passthrough mode and has no webhook_url');
    }
    const session = await this.openSession(agent, request);
    const userId = request.user_id ?? session.user_id;
    // The user's message is stored while the answer is fetched (neither needs the other: the LLM
    // prompt reads history with or without it), and always before the answer is stored.
    const userMessage = store.conversations.appendMessage(session.conversation_id, {
      role: 'user',
      text: request.message,
    });
    userMessage.catch(() => undefined); // awaited below; this only keeps an early failure from counting as unhandled

    const context =
      this.o.rag === undefined ? null : (await this.o.rag.retrieveContext(agent, request.message, session.id)).context;
    const answer = await this.o.responder.answer(agent, {
      sessionId: session.id,
      conversationId: session.conversation_id,
      transcript: request.message,
      userId,
      context,
    });
    const responseMs = Math.round((performance.now() - started) * 100) / 100;
    await userMessage;
    if (!answer.ok) {
      // The turn stays in the conversation as a failed answer pointing at its error record; it is
      // activity (the idle sweeper waits) but not an answered turn.
      await Promise.all([
        store.conversations.appendMessage(session.conversation_id, {
          role: 'agent',
          text: '',
          status: 'failed',
          error_id: answer.errorId,
          timings: { response_ms: responseMs },
        }),
        store.sessions.touch(session.id),
      ]);
      throw new AppError(502, 'upstream_error', answer.message, {
        ...(answer.errorId === null ? {} : { error_id: answer.errorId }),
        session_id: session.id,
      });
    }
    const [message] = await Promise.all([
      store.conversations.appendMessage(session.conversation_id, {
        role: 'agent',
        text: answer.text,
        timings: { response_ms: responseMs, [answer.source === 'webhook' ? 'webhook_ms' : 'llm_ms']: answer.latencyMs },
      }),
      store.sessions.recordTurn(session.id),
      store.agents.bump(agent.id, { turns: 1, response_ms_sum: Math.round(responseMs), response_ms_count: 1 }),
    ]);
    outbox.emit(agent, 'llm_response', session.id, {
      transcript: request.message,
      response: answer.text,
      source: answer.source,
      latency_ms: answer.latencyMs,
      message_id: message.id,
      channel: 'chat',
    });
    return { session_id: session.id, response: answer.text, mode: agent.mode };
  }

  private async openSession(agent: StoredAgent, request: ChatRequest) {
    const { store, outbox } = this.o;
    if (request.session_id !== undefined) {
      let session;
      try {
        session = await store.sessions.get(request.session_id);
      } catch (err) {
        if (err instanceof NotFoundError) throw new NotFoundError('session', request.session_id);
        throw err;
      }
      if (session.agent_id !== agent.id) throw new NotFoundError('session', request.session_id);
      if (session.type !== 'chat')
        throw new ConflictError(`session ${session.id} is a voice session; chat needs a chat session`);
      if (session.status !== 'active') {
        throw new AppError(
          409,
          'session_ended',
          `session ${session.id} has ended (${session.end_reason ?? 'ended'}); omit session_id to start a new one`,
        );
      }
      return session;
    }
    const session = await store.sessions.create({
      agent_id: agent.id,
      type: 'chat',
      transport: 'chat',
      user_id: request.user_id ?? null,
    });
    outbox.emit(agent, 'session_start', session.id, {
      session_type: 'chat',
      transport: 'chat',
      user_id: session.user_id,
      conversation_id: session.conversation_id,
    });
    return session;
  }
}
