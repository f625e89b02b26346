import { AgentReadiness } from '../../../agents/readiness.js';
import type { ChatService } from '../../../chat/chat-service.js';
import type { VoiceSessions } from '../../../realtime/session-grants.js';
import { authenticatedAgent } from '../../middleware/sdk-gate.js';
import { defineRoute, type RouteDef } from '../../route.js';
import { chatBody, chatResponse, sessionBody, sessionResponse } from './sdk.schema.js';

const tag = 'SDK';

export interface SdkDeps {
  chat: ChatService;
  voice: VoiceSessions;
  /** Why the agent cannot serve here: a session answer carries it as `warnings`. */
  readiness: Pick<AgentReadiness, 'of'>;
  maxMessageChars: number;
}

export function sdkRoutes(deps: SdkDeps): RouteDef[] {
  return [
    defineRoute({
      method: 'post',
      path: '/session',
      operationId: 'createVoiceSession',
      summary: 'Open a real-time voice session; returns the media connection token and URL',
      tag,
      body: sessionBody,
      errors: [401, 429, 503],
      responses: {
        201: {
          description: 'The session, its media connection, and why the agent cannot serve here',
          schema: sessionResponse,
        },
      },
      handler: async (ctx, { body }) => {
        const agent = authenticatedAgent(ctx.state);
        // The session opens even when the agent cannot answer: its warnings say why (as the agent's do).
        const [session, readiness] = await Promise.all([
          deps.voice.open(
            agent,
            { user_id: body.user_id, transport: body.transport },
            `${ctx.protocol}://${ctx.host || 'localhost'}`,
          ),
          deps.readiness.of(agent),
        ]);
        return { status: 201, body: { ...session, warnings: AgentReadiness.warnings(readiness) } };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/chat',
      operationId: 'chat',
      summary:
        'Send a text message to an agent and get its text answer; 503 `llm_not_configured` (enhanced mode) when no LLM can run here',
      tag,
      body: chatBody(deps.maxMessageChars),
      errors: [401, 404, 409, 429, 502, 503],
      responses: { 200: { description: "The agent's answer", schema: chatResponse } },
      handler: async (ctx, { body }) => {
        const agent = authenticatedAgent(ctx.state);
        return {
          body: await deps.chat.chat(agent, {
            message: body.message,
            session_id: body.session_id,
            user_id: body.user_id,
          }),
        };
      },
    }),
  ];
}
