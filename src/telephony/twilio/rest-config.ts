import type { Config } from '../../config/config.js';
import { TwilioRestClient } from './rest-client.js';

/**
 * The Twilio REST client for this server's account (TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN,
 * PARLEY_TWILIO_API_BASE_URL), or undefined when either credential is unset: then outbound calls
 * answer 503 `telephony_not_configured` and phone calls cannot be transferred through the carrier.
 */
export function twilioRestClient(twilio: Config['twilio']): TwilioRestClient | undefined {
  const { accountSid, authToken, apiBaseUrl } = twilio;
  if (accountSid === undefined || authToken === undefined) return undefined;
  return new TwilioRestClient({ accountSid, authToken, baseUrl: apiBaseUrl });
}
