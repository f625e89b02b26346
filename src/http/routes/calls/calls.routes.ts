import type { Config } from '../../../config/config.js';
import { AppError, ValidationError } from '../../../errors/app-errors.js';
import type { SessionRecorder } from '../../../session-writes/turn-recorder.js';
import type { Store } from '../../../store/store.js';
import type { CallSessions } from '../../../telephony/call-sessions.js';
import { twilioRestClient } from '../../../telephony/twilio/rest-config.js';
import { OutboundCalls } from '../../../telephony/twilio/rest-outbound.js';
import { defineRoute, type RouteDef } from '../../route.js';
import { idParam } from '../common.schema.js';
import { callCreateBody, callCreateResponse } from './calls.schema.js';

const tag = 'Phone calls';

/** POST /admin/v1/agents/{id}/calls: an outbound phone call through Twilio's REST API. */
export function callRoutes(
  store: Store,
  recorder: SessionRecorder,
  sessions: CallSessions,
  config: Config & { adminApiKey: string },
): RouteDef[] {
  const carrier = twilioRestClient(config.twilio);
  const calls =
    carrier === undefined
      ? undefined
      : new OutboundCalls({
          sessions,
          recorder,
          carrier,
          publicUrl: config.publicUrl,
          connectWindowMs: config.voiceConnectWindowMs,
        });
  return [
    defineRoute({
      method: 'post',
      path: '/agents/:id/calls',
      operationId: 'createCall',
      summary:
        'Place an outbound phone call through Twilio; when answered it connects to a new voice session of this agent',
      tag,
      params: idParam('agent'),
      body: callCreateBody,
      errors: [404, 502, 503],
      responses: { 201: { description: 'The call, queued at Twilio, and its session', schema: callCreateResponse } },
      handler: async (ctx, { params, body }) => {
        if (calls === undefined)
          throw new AppError(
            503,
            'telephony_not_configured',
            'Twilio is not configured on this server (set TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN)',
          );
        const agent = await store.agents.getStored(params.id); // 404 for an unknown agent
        const from = body.from ?? agent.phone_numbers[0];
        if (from === undefined)
          throw new ValidationError([
            { path: 'body.from', message: 'required: the agent has no phone_numbers to call from' },
          ]);
        const placed = await calls.place(
          agent,
          { to: body.to, from, userId: body.user_id ?? body.to },
          `${ctx.protocol}://${ctx.host || 'localhost'}`,
        );
        return {
          status: 201,
          body: { call_sid: placed.callSid, session_id: placed.sessionId, status: placed.status },
        };
      },
    }),
  ];
}
