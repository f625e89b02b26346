import type { Logger } from 'pino';
import { endReasonOf, type CallAction } from '../actions/call-action.js';
import { AppError, ConflictError, NotFoundError } from '../errors/app-errors.js';
import type { StoredAgent } from '../schemas/agent.js';
import { notConfiguredMessage } from '../respond/answer-failure.js';
import type { Answer, Responder } from '../respond/responder.js';
import type { RagService } from '../rag/rag-service.js';
import type { Store } from '../store/store.js';
import type { SessionRecorder } from '../session-writes/turn-recorder.js';

export interface ChatRequest {
  message: string;
  session_id?: string | undefined;
  user_id?: string | undefined;
}

export interface ChatReply {
  session_id: string;
  response: string;
  mode: 'enhanced' | 'passthrough';
  /** Present (true) only when the answer ended the session (call control `end_call` or `transfer`). */
  ended?: true;
  /** Present only for a `transfer`: where the client should hand the user over (null: it decides). */
  transfer?: { to: string | null };
}

export interface ChatServiceOptions {
  store: Store;
  responder: Responder;
  /** Every write of a chat turn (session, messages, counters, events) goes through it. */
  recorder: SessionRecorder;
  logger: Logger;
  /** RAG context for agents with rag_enabled; without it context stays null. */
  rag?: RagService | undefined;
}

/**
 * What an end user is told when the answer failed: which upstream did not answer, never how (no
 * hostnames, ports or errno strings of the operator's network). The error record, whose id the
 * 502 carries, keeps the detail for the operator.
 */
export function failedAnswerMessage(agent: StoredAgent): string {
  return agent.mode === 'passthrough' ? "the agent's webhook did not answer" : 'the language model did not answer';
}

/**
 * POST /sdk/v1/chat: finds or starts the chat session, stores the user's message, gets the answer
 * (webhook or LLM), and stores it with its timings; the turn recorder writes each record together
 * with the event announcing it (`session_start`, `llm_response`), delivered later by the outbox.
 */
export class ChatService {
  constructor(private readonly o: ChatServiceOptions) {}

  async chat(agent: StoredAgent, request: ChatRequest): Promise<ChatReply> {
    const { recorder } = this.o;
    const started = performance.now();
    if (agent.mode === 'passthrough' && agent.webhook_url === null) {
      throw new AppError(400, 'webhook_not_configured', 'agent is in passthrough mode and has no webhook_url');
    }
    const session = await this.openSession(agent, request);
    const userId = request.user_id ?? session.user_id;
    // The user's message is stored while the answer is fetched (neither needs the other: the LLM
    // prompt reads history with or without it), and always before the answer is stored.
    const userMessage = recorder.user(session, { text: request.message });
    userMessage.catch(() => undefined); // awaited below; this only keeps an early failure from counting as unhandled

    const context =
      this.o.rag === undefined ? null : (await this.o.rag.retrieveContext(agent, request.message, session.id)).context;
    let action: CallAction | null = null;
    const answer = await this.o.responder.answer(agent, {
      sessionId: session.id,
      conversationId: session.conversation_id,
      transcript: request.message,
      userId,
      context,
      session,
      channel: 'chat',
      turn: session.turns + 1,
      onAction: (asked) => (action = asked),
    });
    const responseMs = Math.round((performance.now() - started) * 100) / 100;
    await userMessage;
    const turn = session.turns + 1;
    if (!answer.ok) {
      // The turn stays in the conversation as a failed answer pointing at its error record; it is
      // activity (the idle sweeper waits) but not an answered turn.
      await recorder.answered(agent, session, {
        channel: 'chat',
        turn,
        transcript: request.message,
        text: '',
        status: 'failed',
        source: agent.mode === 'passthrough' ? 'webhook' : 'llm',
        errorId: answer.errorId,
        timings: { response_ms: responseMs },
      });
      // A session whose first message got no answer failed: it ends now (`error`) instead of being
      // counted live until the idle sweep. Later in a conversation a failed turn leaves it open.
      if (session.turns === 0)
        await recorder.ended(agent, session.id, 'error', { error: answer.message, session_type: 'chat' });
      throw this.upstreamError(agent, answer, session.id);
    }
    await recorder.answered(agent, session, {
      channel: 'chat',
      turn,
      transcript: request.message,
      text: answer.text,
      status: 'complete',
      source: answer.source,
      latencyMs: answer.latencyMs,
      timings: { response_ms: responseMs, [answer.source === 'webhook' ? 'webhook_ms' : 'llm_ms']: answer.latencyMs },
    });
    const reply: ChatReply = { session_id: session.id, response: answer.text, mode: agent.mode };
    return action === null ? reply : this.act(agent, session.id, action, reply);
  }

  /**
   * Call control in chat, after the answer is stored: the session ends (`agent_hangup` or
   * `transferred`) and the reply says so; a transfer's destination goes to the client, which hands
   * the user over (to a human desk, a phone line) as its app knows how.
   */
  private async act(agent: StoredAgent, sessionId: string, action: CallAction, reply: ChatReply): Promise<ChatReply> {
    await this.o.recorder.ended(agent, sessionId, endReasonOf(action), { error: null, session_type: 'chat' });
    return { ...reply, ended: true, ...(action.type === 'transfer' ? { transfer: { to: action.to } } : {}) };
  }

  private upstreamError(agent: StoredAgent, answer: Answer & { ok: false }, sessionId: string): AppError {
    this.o.logger.info({ session_id: sessionId, error_id: answer.errorId, err: answer.message }, 'chat answer failed');
    const ids = { ...(answer.errorId === null ? {} : { error_id: answer.errorId }), session_id: sessionId };
    // A deployment without a usable LLM is said as it is, with every fix readiness names: nothing was called.
    if (answer.reason === 'llm_not_configured')
      return new AppError(503, 'llm_not_configured', notConfiguredMessage(answer.message), ids);
    return new AppError(502, 'upstream_error', failedAnswerMessage(agent), ids);
  }

  private async openSession(agent: StoredAgent, request: ChatRequest) {
    const { store, recorder } = this.o;
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
    return recorder.started(agent, {
      agent_id: agent.id,
      type: 'chat',
      transport: 'chat',
      user_id: request.user_id ?? null,
    });
  }
}
