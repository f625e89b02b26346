import { z } from 'zod';

/**
 * Where a call may be transferred (an agent's `transfer_to`, a webhook reply's `action.to`): a SIP
 * URI (`sip:`/`sips:`), a `tel:` URI, or a phone number such as +15105550100.
 */
export const transferTargetSchema = z
  .string()
  .trim()
  .max(256)
  .regex(
    /^(sips?:[^\s@]+@[^\s]+|sips?:\+?[0-9]{3,20}|tel:\+?[0-9*#][0-9*#().-]{1,31}|\+?[0-9][0-9 ().-]{2,31})$/,
    'must be a SIP URI (sip:user@host), a tel: URI or a phone number such as +15105550100',
  );
