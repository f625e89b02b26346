import { describe, expect, it } from 'vitest';
import { StreamFormatError, framerFor, ndjsonType, sseType } from '../../src/respond/stream-framing.js';
import { readWebhookStream, type WebhookStreamType } from '../../src/respond/webhook-stream.js';

/** Streamed webhook answers: SSE and NDJSON framing, and the records read from them. */

const utf8 = (text: string) => new Uint8Array(Buffer.from(text, 'utf8'));

/** Every record of `body` fed in the given pieces. */
function records(type: WebhookStreamType, pieces: Uint8Array[]): string[] {
  const framer = framerFor(type);
  return [...pieces.flatMap((p) => framer.push(p)), ...framer.end()];
}

/** `bytes` cut at `at` (every cut point of a body is tried below). */
const cutAt = (bytes: Uint8Array, at: number) => [bytes.subarray(0, at), bytes.subarray(at)];

/** `bytes` one byte a chunk. */
const byteByByte = (bytes: Uint8Array) => [...bytes].map((b) => Uint8Array.of(b));

// Multi-byte characters (2, 3 and 4 bytes) so cuts fall inside them.
const words = ['Grüß dich, ', 'café — 日本語 ', 'ok 😀.'];

describe('SSE framing', () => {
  const body = utf8(
    '\uFEFF: a comment opening the stream\n' +
      'retry: 1000\n' +
      'event: message\n' +
      `data: {"text":${JSON.stringify(words[0])}}\n\n` +
      ':keep-alive\r\n' +
      'id: 7\r\n' +
      `data: {"text":\r\ndata: ${JSON.stringify(words[1])}}\r\n\r\n` +
      ': ping\r\r' +
      `data:{"text":${JSON.stringify(words[2])},"done":true}\r\r`,
  );
  const expected = [
    `{"text":${JSON.stringify(words[0])}}`,
    `{"text":\n${JSON.stringify(words[1])}}`,
    `{"text":${JSON.stringify(words[2])},"done":true}`,
  ];

  it('reads data lines (one space dropped, joined by \\n) and skips comments, other fields and the BOM', () => {
    expect(records(sseType, [body])).toEqual(expected);
  });

  it('gives the same records whatever the chunk boundaries, inside characters and CRLF pairs too', () => {
    for (let at = 0; at <= body.length; at++) expect(records(sseType, cutAt(body, at))).toEqual(expected);
    expect(records(sseType, byteByByte(body))).toEqual(expected);
  });

  it('a CR ending one chunk and the LF opening the next are one line break', () => {
    expect(records(sseType, [utf8('data: {"text":"a"}\r'), utf8('\n\r\n')])).toEqual(['{"text":"a"}']);
  });

  it('an event with empty data is none; a field without a colon is its name with an empty value', () => {
    expect(records(sseType, [utf8('data\n\ndata:\n\nevent\ndata: {}\n\n')])).toEqual(['{}']);
  });

  it('a body that ends inside an event is an error (its text would be lost); a trailing comment is not', () => {
    expect(() => records(sseType, [utf8('data: {"text":"a"}\n\ndata: {"text":"b"}\n')])).toThrow(StreamFormatError);
    expect(() => records(sseType, [utf8('data: {"text":"a"}')])).toThrow(/ended inside an event/);
    expect(records(sseType, [utf8('data: {"text":"a"}\n\n: bye')])).toEqual(['{"text":"a"}']);
  });
});

describe('NDJSON framing', () => {
  const lines = words.map((w) => JSON.stringify({ text: w }));
  const body = utf8(`${lines[0]}\n\n${lines[1]}\r\n   \n${lines[2]}\n`);

  it('reads one record a line, skipping blank lines, whatever the chunk boundaries', () => {
    expect(records(ndjsonType, [body])).toEqual(lines);
    for (let at = 0; at <= body.length; at++) expect(records(ndjsonType, cutAt(body, at))).toEqual(lines);
    expect(records(ndjsonType, byteByByte(body))).toEqual(lines);
  });

  it('the last line may lack its newline', () => {
    expect(records(ndjsonType, [utf8('{"text":"a"}\n{"done":true}')])).toEqual(['{"text":"a"}', '{"done":true}']);
  });
});

/** What readWebhookStream gives for `pieces`: the text pieces and the end, or the error. */
async function read(type: WebhookStreamType, pieces: (string | Uint8Array)[], maxBytes = 1 << 20) {
  const source = {
    read: 0,
    closed: false,
    async *[Symbol.asyncIterator]() {
      try {
        for (const p of pieces) {
          this.read++;
          yield typeof p === 'string' ? utf8(p) : p;
        }
      } finally {
        this.closed = true;
      }
    },
  };
  const reader = readWebhookStream(source, type, maxBytes);
  const text: string[] = [];
  for (;;) {
    const next = await reader.next();
    if (next.done === true) return { text, end: next.value, read: source.read, closed: source.closed };
    text.push(next.value);
  }
}

describe('reading a streamed answer', () => {
  it('gives each text as it comes, multi-byte characters whole across chunks', async () => {
    const body = utf8(words.map((w) => `${JSON.stringify({ text: w })}\n`).join(''));
    const out = await read(ndjsonType, byteByByte(body));
    expect(out.text).toEqual(words);
    expect(out.end).toEqual({ action: undefined });
  });

  it('stops at done: true, leaving the rest unread, and keeps the last action', async () => {
    const out = await read(sseType, [
      'data: {"text":"Bye.","action":{"type":"transfer"}}\n\n',
      'data: {"action":{"type":"end_call"},"done":true}\n\ndata: {"text":"ignored"}\n\n',
      'data: {"text":"never read"}\n\n',
    ]);
    expect(out.text).toEqual(['Bye.']);
    expect(out.end).toEqual({ action: { type: 'end_call' } });
    expect(out.read).toBe(2);
    expect(out.closed).toBe(true);
  });

  it('ignores other fields and records with nothing (keep-alives); an action alone is an answer', async () => {
    const out = await read(ndjsonType, ['{}\n{"id":3,"text":"Hi","extra":[1]}\n{"text":null}\n']);
    expect(out.text).toEqual(['Hi']);
    expect((await read(ndjsonType, ['{"action":{"type":"end_call"}}'])).end).toEqual({
      action: { type: 'end_call' },
    });
  });

  it.each([
    ['an empty body', sseType, [], /ended without an answer/],
    ['only comments and empty records', sseType, [': hi\n\ndata: {}\n\n'], /ended without an answer/],
    ['a record that is not JSON', sseType, ['data: {"text":"a"}\n\ndata: [DONE]\n\n'], /not JSON: "\[DONE\]"/],
    ['a record cut midway (NDJSON)', ndjsonType, ['{"text":"a"}\n{"text":"b'], /not JSON: "{\\"text\\":\\"b"/],
    ['a JSON value that is not an object', ndjsonType, ['"text"\n'], /not a JSON object/],
    ['an array', ndjsonType, ['[{"text":"a"}]\n'], /not a JSON object/],
    ['a text that is not a string', ndjsonType, ['{"text":42}\n'], /`text` is not a string/],
    ['a done that is not a boolean', ndjsonType, ['{"text":"a","done":"yes"}\n'], /`done` is not true or false/],
    ['an event cut midway (SSE)', sseType, ['data: {"text":"a"}\n\ndata: {"text":"b"}'], /ended inside an event/],
  ] as const)('%s is a format error', async (_, type, pieces, message) => {
    await expect(read(type, [...pieces])).rejects.toThrow(message);
    await expect(read(type, [...pieces])).rejects.toBeInstanceOf(StreamFormatError);
  });

  it('a stream over the size limit fails once past it, after the text before it', async () => {
    const texts: string[] = [];
    const source = (async function* () {
      for (let i = 0; i < 10; i++) yield utf8(`{"text":"${'x'.repeat(90)}"}\n`);
    })();
    const reader = readWebhookStream(source, ndjsonType, 500);
    await expect(
      (async () => {
        for (;;) {
          const next = await reader.next();
          if (next.done === true) return;
          texts.push(next.value);
        }
      })(),
    ).rejects.toThrow(/too large \(over 500 bytes\)/);
    expect(texts).toHaveLength(4);
  });

  it("the body's own failure (a stall, a cut) passes through as it is", async () => {
    const cut = new Error('cut');
    const source = (async function* () {
      yield utf8('{"text":"a"}\n');
      throw cut;
    })();
    const reader = readWebhookStream(source, ndjsonType, 1000);
    expect(await reader.next()).toEqual({ done: false, value: 'a' });
    await expect(reader.next()).rejects.toBe(cut);
  });
});
