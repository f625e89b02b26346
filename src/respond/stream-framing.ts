/**
 * The framing of a streamed webhook answer: its bytes cut into records, each the JSON text of one
 * Server-Sent Event's `data` (`text/event-stream`) or one line (`application/x-ndjson`). Chunks
 * may split anything: a line, a line break (`\r` | `\n`), a multi-byte UTF-8 character.
 */

/** The stream breaks its format: the webhook sent something Parley cannot read. */
export class StreamFormatError extends Error {
  override readonly name = 'StreamFormatError';
}

export interface RecordFramer {
  /** The records `bytes` completes, in order. */
  push(bytes: Uint8Array): string[];
  /** The body has ended: the records left. Throws StreamFormatError when it ended mid-record. */
  end(): string[];
}

export const sseType = 'text/event-stream';
export const ndjsonType = 'application/x-ndjson';

export function framerFor(mediaType: typeof sseType | typeof ndjsonType): RecordFramer {
  return mediaType === sseType ? new SseFramer() : new NdjsonFramer();
}

/** UTF-8 text cut into lines at `\r\n`, `\n` or `\r` (SSE's rule), a leading BOM dropped. */
class Lines {
  private readonly decoder = new TextDecoder('utf-8');
  private partial = '';
  /** The last text ended with `\r`: a `\n` opening the next one belongs to that line break. */
  private afterCr = false;

  push(bytes: Uint8Array): string[] {
    return this.split(this.decoder.decode(bytes, { stream: true }));
  }

  /** The lines the decoder's tail completes, and the unterminated last line ('' when none). */
  end(): { lines: string[]; last: string } {
    const lines = this.split(this.decoder.decode());
    const last = this.partial;
    this.partial = '';
    return { lines, last };
  }

  private split(text: string): string[] {
    if (text === '') return [];
    const lines: string[] = [];
    let start = this.afterCr && text.startsWith('\n') ? 1 : 0;
    this.afterCr = false;
    for (let i = start; i < text.length; i++) {
      const c = text[i];
      if (c !== '\n' && c !== '\r') continue;
      lines.push(this.partial + text.slice(start, i));
      this.partial = '';
      if (c === '\r') {
        if (i + 1 === text.length) this.afterCr = true;
        else if (text[i + 1] === '\n') i++;
      }
      start = i + 1;
    }
    this.partial += text.slice(start);
    return lines;
  }
}

/**
 * Server-Sent Events as the WHATWG spec parses them: `data:` lines (one leading space dropped)
 * joined with `\n` make an event's record, dispatched at a blank line; comments (`:` lines),
 * `event:`, `id:`, `retry:` and unknown fields are ignored; an event with empty data is none.
 * The spec drops an event the body ends inside; here that is an error, since its text would be lost.
 */
class SseFramer implements RecordFramer {
  private readonly lines = new Lines();
  private data: string[] | null = null;

  push(bytes: Uint8Array): string[] {
    return this.take(this.lines.push(bytes));
  }

  end(): string[] {
    const { lines, last } = this.lines.end();
    const records = this.take(last === '' ? lines : [...lines, last]);
    if (this.data !== null)
      throw new StreamFormatError('webhook stream ended inside an event (its data was not followed by a blank line)');
    return records;
  }

  private take(lines: string[]): string[] {
    const records: string[] = [];
    for (const line of lines) {
      if (line === '') {
        const record = this.data?.join('\n') ?? '';
        this.data = null;
        if (record !== '') records.push(record);
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      if ((colon === -1 ? line : line.slice(0, colon)) !== 'data') continue;
      const value = colon === -1 ? '' : line.slice(colon + 1);
      (this.data ??= []).push(value.startsWith(' ') ? value.slice(1) : value);
    }
    return records;
  }
}

/** Newline-delimited JSON: one record a line; blank lines skipped; the last line may lack its `\n`. */
class NdjsonFramer implements RecordFramer {
  private readonly lines = new Lines();

  push(bytes: Uint8Array): string[] {
    return this.lines.push(bytes).filter((line) => line.trim() !== '');
  }

  end(): string[] {
    const { lines, last } = this.lines.end();
    return [...lines, last].filter((line) => line.trim() !== '');
  }
}
