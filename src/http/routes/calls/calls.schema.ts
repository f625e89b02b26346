import { z } from 'zod';
import { e164Pattern } from '../../../telephony/carrier-calls.js';

const e164 = z.string().regex(e164Pattern, 'must be an E.164 number such as +15105550100');

export const callCreateBody = z
  .strictObject({
    to: e164.meta({ description: 'The number to call (E.164).' }),
    from: e164.optional().meta({
      description:
        "The caller ID (E.164): a number of the Twilio account. Default: the agent's first `phone_numbers` entry.",
    }),
    user_id: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .optional()
      .meta({ description: "The session's `user_id`; default: the number called (`to`)." }),
  })
  .meta({ id: 'CallCreateRequest' });

export const callCreateResponse = z
  .object({
    call_sid: z
      .string()
      .meta({ description: "Twilio's call SID (`CA…`).", example: 'CA0123456789abcdef0123456789abcdef' }),
    session_id: z.string().meta({ description: 'The voice session the call connects to once answered.' }),
    status: z.string().meta({ description: "Twilio's status for the new call (`queued`)." }),
  })
  .meta({ id: 'CallCreated' });
