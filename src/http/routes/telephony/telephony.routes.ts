import type { Context } from 'koa';
import type { Logger } from 'pino';
import { AppError, ValidationError } from '../../../errors/app-errors.js';
import type { CallSessions } from '../../../telephony/call-sessions.js';
import { isTwilioSignatureValid } from '../../../realtime/telephony/twilio-signature.js';
import { sayAndHangUpTwiml, streamTwiml, twimlDocument } from '../../../telephony/twilio/twiml.js';
import type { Store } from '../../../store/store.js';
import { defineRoute, type RouteDef } from '../../route.js';
import { readFormBody } from './form-body.js';
import { twilioVoiceWebhookSchema, twimlSchema } from './telephony.schema.js';

export interface TelephonyRouteDeps {
  store: Store;
  calls: CallSessions;
  logger: Logger;
  twilio: { authToken: string | undefined; accountSid: string | undefined };
  /** PARLEY_PUBLIC_URL: the address Twilio calls; unset, the request's own (proto and host, per trustProxy). */
  publicUrl: string | undefined;
}

const tag = 'Telephony';
const xml = { 'Content-Type': 'text/xml; charset=utf-8' };
export const unknownNumberMessage = 'Sorry, this number is not in service. Goodbye.';

/** The address Twilio reached: PARLEY_PUBLIC_URL, else this request's origin. */
function publicBase(ctx: Context, publicUrl: string | undefined): URL {
  try {
    return new URL(publicUrl ?? `${ctx.protocol}://${ctx.host || 'localhost'}`);
  } catch {
    throw new AppError(400, 'bad_request', 'the Host header is not a valid host; set PARLEY_PUBLIC_URL behind proxies');
  }
}

/** `POST /telephony/v1/twilio/voice`: Twilio's "A call comes in" webhook. */
export function telephonyRoutes(deps: TelephonyRouteDeps): RouteDef[] {
  return [
    defineRoute({
      method: 'post',
      path: '/twilio/voice',
      operationId: 'twilioVoiceWebhook',
      summary:
        "Twilio's voice webhook, signed (`X-Twilio-Signature`): answers TwiML connecting the call to the number's agent over a Media Stream, or a polite refusal for a number no agent has",
      tag,
      documentedBody: { 'application/x-www-form-urlencoded': twilioVoiceWebhookSchema },
      errors: [403, 413, 415, 503],
      responses: { 200: { description: 'TwiML', schema: twimlSchema, contentType: 'text/xml' } },
      handler: async (ctx) => {
        const { authToken, accountSid } = deps.twilio;
        if (authToken === undefined)
          throw new AppError(503, 'telephony_not_configured', 'phone calls are not configured (set TWILIO_AUTH_TOKEN)');
        const params = await readFormBody(ctx);
        const base = publicBase(ctx, deps.publicUrl);
        const signedUrl = base.origin + base.pathname.replace(/\/$/, '') + ctx.originalUrl;
        const signature = ctx.get('X-Twilio-Signature');
        if (!isTwilioSignatureValid(authToken, signedUrl, params, signature === '' ? undefined : signature)) {
          await refuse(deps, ctx, 'telephony_bad_signature', 'X-Twilio-Signature is missing or wrong', signedUrl);
        }
        const parsed = twilioVoiceWebhookSchema.safeParse(Object.fromEntries(params));
        if (!parsed.success)
          throw new ValidationError(
            parsed.error.issues.map((i) => ({ path: ['body', ...i.path.map(String)].join('.'), message: i.message })),
          );
        const call = parsed.data;
        if (accountSid !== undefined && call.AccountSid !== accountSid)
          await refuse(
            deps,
            ctx,
            'telephony_wrong_account',
            `AccountSid ${call.AccountSid} is not this server's`,
            signedUrl,
          );
        const agent = await deps.store.agents.findByPhoneNumber(call.To);
        if (agent === null) {
          deps.logger.info({ call_sid: call.CallSid, to: call.To }, 'call to a number no agent answers: refused');
          return { headers: xml, body: twimlDocument(sayAndHangUpTwiml(unknownNumberMessage)) };
        }
        const stream = await deps.calls.open(
          agent,
          { direction: 'inbound', callSid: call.CallSid, from: call.From, to: call.To },
          base,
        );
        deps.logger.info(
          { call_sid: call.CallSid, session_id: stream.session_id, agent_id: agent.id },
          'call answered: media stream requested',
        );
        return { headers: xml, body: twimlDocument(streamTwiml(stream.url, stream.parameters)) };
      },
    }),
  ];
}

/** 403 with an error record (a misconfigured token, or someone posing as Twilio). */
async function refuse(
  deps: TelephonyRouteDeps,
  ctx: Context,
  type: 'telephony_bad_signature' | 'telephony_wrong_account',
  message: string,
  url: string,
): Promise<never> {
  try {
    await deps.store.errors.record({
      type,
      message,
      agent_id: null,
      session_id: null,
      status_code: 403,
      latency_ms: null,
      details: { url, client: ctx.ip },
    });
  } catch (err) {
    deps.logger.error({ err, type }, 'could not write the telephony error record');
  }
  throw new AppError(403, type, message);
}
