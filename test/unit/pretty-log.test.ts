import { describe, expect, it } from 'vitest';
import { createLogger, type LogFormat } from '../../src/logging/logger.js';
import { prettyLine } from '../../src/logging/pretty-log.js';

/** A stand-in for stdout that keeps what is written; `isTTY` as a terminal or a pipe has it. */
function output(isTTY: boolean) {
  const written: string[] = [];
  return { isTTY, written, write: (text: string) => written.push(text), text: () => written.join('') };
}

function logged(format: LogFormat, isTTY: boolean, env: NodeJS.ProcessEnv = {}) {
  const out = output(isTTY);
  const logger = createLogger('info', format, out, env);
  logger.info({ capability: 'stt', provider: 'pocketsphinx', worker: 1 }, 'stt: pocketsphinx (en-us) is used');
  logger.warn({ headers: { authorization: 'Bearer s3cret' } }, 'a request');
  return out.text();
}

const escape = '\u001b[';
const clockOf = (iso: string) => {
  const d = new Date(iso);
  return [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
};

describe('PARLEY_LOG_FORMAT', () => {
  it('auto: readable, coloured lines on a terminal', () => {
    const text = logged('auto', true);
    const lines = text.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(text).toContain(escape);
    const plain = text.replaceAll(new RegExp(`${escape.replace('[', '\\[')}[0-9;]*m`, 'g'), '');
    expect(plain).toMatch(/^\d\d:\d\d:\d\d INFO {2}stt: pocketsphinx \(en-us\) is used worker=1\n/);
    expect(plain).toMatch(/\n\d\d:\d\d:\d\d WARN {2}a request headers=\{"authorization":"\[redacted\]"\}\n$/);
    expect(text).not.toContain('s3cret');
  });

  it('auto: the JSON lines of before when stdout is not a terminal', () => {
    const lines = logged('auto', false).trimEnd().split('\n');
    const first = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(first).toMatchObject({ level: 30, service: 'parley', capability: 'stt', msg: expect.any(String) });
    expect(first['time']).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(JSON.parse(lines[1]!)).toMatchObject({ level: 40, headers: { authorization: '[redacted]' } });
  });

  it('json: JSON even on a terminal', () => {
    const text = logged('json', true);
    expect(text).not.toContain(escape);
    expect(
      text
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as unknown),
    ).toHaveLength(2);
  });

  it('pretty: readable lines without colours where stdout is not a terminal, and none with NO_COLOR', () => {
    for (const text of [logged('pretty', false), logged('auto', true, { NO_COLOR: '1' })]) {
      expect(text).not.toContain(escape);
      expect(text).toMatch(/^\d\d:\d\d:\d\d INFO {2}stt: pocketsphinx/);
    }
  });
});

describe('a readable line', () => {
  const time = '2026-03-04T05:06:07.000Z';
  const line = (entry: Record<string, unknown>) =>
    prettyLine(JSON.stringify({ level: 30, time, service: 'parley', ...entry }), false);

  it('is the local time, the level, the message, then the fields the message does not already say', () => {
    expect(line({ capability: 'llm', url: 'http://x:1', port: 1, msg: 'llm: used at http://x:1' })).toBe(
      `${clockOf(time)} INFO  llm: used at http://x:1 port=1`,
    );
  });

  it('quotes text with spaces, writes objects, numbers and booleans as JSON', () => {
    expect(line({ msg: 'm', a: 'two words', b: 'one', c: { d: [1] }, e: false, f: null, g: '' })).toBe(
      `${clockOf(time)} INFO  m a="two words" b=one c={"d":[1]} e=false f=null g=""`,
    );
  });

  it("shows an error's message on the line and its stack below it", () => {
    const err = { type: 'Error', message: 'boom', stack: 'Error: boom\n    at f (a.js:1:1)\n    at g (b.js:2:2)' };
    expect(prettyLine(JSON.stringify({ level: 50, time, err, msg: 'boot failed' }), false)).toBe(
      `${clockOf(time)} ERROR boot failed boom\n    at f (a.js:1:1)\n    at g (b.js:2:2)`,
    );
  });

  it('leaves a line that is not a JSON object as it is', () => {
    expect(prettyLine('plain text', true)).toBe('plain text');
    expect(prettyLine('[1,2]', true)).toBe('[1,2]');
  });
});
