import type { DestinationStream } from 'pino';

/**
 * pino's JSON lines as a person reads them on a terminal: `HH:MM:SS LEVEL message key=value …`,
 * the time local, an error's message after the line's and its stack on the lines below. Every
 * field is kept except the one every line carries (`service`) and text fields the message already
 * says word for word (`capability=stt` after `stt: …`). Colours (level, time, keys) only when asked.
 */

const levels: Record<number, { label: string; colour: string }> = {
  10: { label: 'TRACE', colour: '90' },
  20: { label: 'DEBUG', colour: '34' },
  30: { label: 'INFO ', colour: '32' },
  40: { label: 'WARN ', colour: '33' },
  50: { label: 'ERROR', colour: '31' },
  60: { label: 'FATAL', colour: '1;35' },
};

/** Fields the line shows in its own place, or that every line of this server carries (`service`). */
const shownElsewhere = new Set(['level', 'time', 'msg', 'service', 'err']);

/** A destination for `pino(options, destination)` that writes each line readable to `out`. */
export function prettyDestination(out: { write(text: string): unknown }, colours: boolean): DestinationStream {
  return {
    write: (chunk: string) => {
      for (const line of chunk.split('\n')) if (line !== '') out.write(prettyLine(line, colours) + '\n');
    },
  };
}

/** One pino JSON line made readable; a line that is not a JSON object comes back as it is. */
export function prettyLine(json: string, colours: boolean): string {
  let entry: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(json);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return json;
    entry = parsed as Record<string, unknown>;
  } catch {
    return json; // not one of pino's lines: shown as written
  }
  const paint = (code: string, text: string) => (colours ? `\u001b[${code}m${text}\u001b[0m` : text);
  const level = levels[entry['level'] as number] ?? { label: String(entry['level']).padEnd(5), colour: '0' };
  const err = errorOf(entry['err']);
  const parts = [paint('2', clock(entry['time'])), paint(level.colour, level.label)];
  const message = typeof entry['msg'] === 'string' ? entry['msg'] : '';
  if (message !== '') parts.push(message);
  if (err !== undefined && err.message !== message) parts.push(err.message);
  for (const [key, value] of Object.entries(entry)) {
    if (shownElsewhere.has(key) || value === undefined) continue;
    if (typeof value === 'string' && value.length >= 3 && message.includes(value)) continue;
    parts.push(`${paint('2', `${key}=`)}${shownValue(value)}`);
  }
  const head = parts.join(' ');
  if (err?.stack === undefined) return head;
  const stack = err.stack
    .split('\n')
    .slice(1)
    .map((l) => `    ${l.trim()}`);
  return [head, ...stack.map((l) => paint('2', l))].join('\n');
}

/** A logged time (ISO string or epoch ms) as local HH:MM:SS; the value itself when unreadable. */
function clock(time: unknown): string {
  const date = typeof time === 'string' || typeof time === 'number' ? new Date(time) : undefined;
  if (date === undefined || Number.isNaN(date.getTime())) return String(time ?? '--:--:--');
  return [date.getHours(), date.getMinutes(), date.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
}

/** pino's serialized error (`{type, message, stack, …}`), or undefined. */
function errorOf(value: unknown): { message: string; stack: string | undefined } | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { message, stack } = value as { message?: unknown; stack?: unknown };
  return {
    message: typeof message === 'string' ? message : JSON.stringify(value),
    stack: typeof stack === 'string' ? stack : undefined,
  };
}

/** A bare word as it is; a string with spaces, quotes or `=` quoted; anything else as JSON. */
function shownValue(value: unknown): string {
  if (typeof value === 'string') return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  return JSON.stringify(value) ?? String(value);
}
