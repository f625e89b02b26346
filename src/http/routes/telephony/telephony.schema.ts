import { z } from 'zod';

/**
 * Twilio's voice webhook body (application/x-www-form-urlencoded): the fields Parley reads; Twilio
 * sends many more (CallStatus, Direction, Caller*, …), all covered by the signature, none needed.
 */
export const twilioVoiceWebhookSchema = z
  .looseObject({
    CallSid: z.string().min(1).max(64),
    AccountSid: z.string().min(1).max(64),
    From: z.string().max(64).default(''),
    To: z.string().min(1).max(64),
  })
  .meta({ id: 'TwilioVoiceWebhook' });

export const twimlSchema = z.string().meta({
  id: 'TwiML',
  description:
    'A known number: `<Response><Connect><Stream url="wss://…/telephony/v1/twilio/media">` with the `session_id` and `token` parameters. An unknown one: `<Say>` a refusal and `<Hangup/>`.',
});
