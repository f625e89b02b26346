import { pino, type Logger } from 'pino';
import { prettyDestination } from './pretty-log.js';

/** PARLEY_LOG_FORMAT: `auto` is `pretty` when stdout is a terminal and `json` otherwise. */
export type LogFormat = 'auto' | 'json' | 'pretty';

/** What the log writes to: stdout, or a test's stand-in for it. */
export interface LogOutput {
  isTTY?: boolean;
  write(text: string): unknown;
}

/**
 * Logs on stdout: pino's JSON lines, or (`pretty`, and `auto` on a terminal) the same lines made
 * readable (src/logging/pretty-log.ts), coloured only on a terminal and unless NO_COLOR is set. Secrets
 * are redacted wherever they appear in a logged object, in either format.
 */
export function createLogger(
  level: string,
  format: LogFormat = 'json',
  output: LogOutput = process.stdout,
  env: NodeJS.ProcessEnv = process.env,
): Logger {
  const options = {
    level,
    base: { service: 'parley' },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: {
      paths: ['*.webhook_api_key', '*.agent_token', '*.adminApiKey', 'headers["x-api-key"]', 'headers.authorization'],
      censor: '[redacted]',
    },
  };
  const terminal = output.isTTY === true;
  if (format === 'json' || (format === 'auto' && !terminal)) {
    return output === process.stdout ? pino(options) : pino(options, output);
  }
  const colours = terminal && (env['NO_COLOR'] ?? '') === '';
  return pino(options, prettyDestination(output, colours));
}
