import { pino, type Logger } from 'pino';

/** Structured JSON logs on stdout; secrets are redacted wherever they appear in a logged object. */
export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { service: 'parley' },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: {
      paths: ['*.webhook_api_key', '*.agent_token', '*.adminApiKey', 'headers["x-api-key"]', 'headers.authorization'],
      censor: '[redacted]',
    },
  });
}
