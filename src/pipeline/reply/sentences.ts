import { Observable, type OperatorFunction } from 'rxjs';

/** A sentence ends at . ! ? … (closing quotes/brackets allowed) followed by whitespace, or at a newline. */
const sentenceEnd = /[.!?…]+["')\]]*\s|\n+/;
/** A first clause ends at a comma followed by whitespace ("Sure, …"; "1,000" stays whole), or where a sentence does. */
const clauseEnd = /[.!?…,]+["')\]]*\s|\n+/;

/**
 * Cuts streamed text into sentences as soon as each is complete, so speech can start before the
 * answer is finished. The first piece may end at a clause ("Sure, let me check." starts speaking
 * at "Sure,"): the user hears the answer begin one clause sooner, and later pieces go to TTS while
 * it plays. Runs longer than `maxChars` without an end are cut at the last space before it (or at
 * `maxChars`); what is left at the end is the last piece.
 */
export class SentenceSplitter {
  private buffer = '';
  private pieces = 0;

  constructor(private readonly maxChars = 240) {}

  /** Adds a piece of text; returns the pieces it completed (often none). */
  push(delta: string): string[] {
    this.buffer += delta;
    const out: string[] = [];
    for (;;) {
      const match = (this.pieces === 0 ? clauseEnd : sentenceEnd).exec(this.buffer);
      let cut = match === null ? -1 : match.index + match[0].length;
      if (cut < 0 && this.buffer.length > this.maxChars) {
        const space = this.buffer.lastIndexOf(' ', this.maxChars);
        cut = space > 0 ? space + 1 : this.maxChars;
      }
      if (cut < 0) return out;
      const sentence = this.buffer.slice(0, cut).trim();
      this.buffer = this.buffer.slice(cut);
      if (sentence !== '') {
        out.push(sentence);
        this.pieces++;
      }
    }
  }

  /** The unfinished rest, once the text has ended ('' when none). */
  flush(): string {
    const rest = this.buffer.trim();
    this.buffer = '';
    return rest;
  }
}

/** Text deltas in, complete sentences out (the first may be a clause; one splitter per subscription). */
export function splitSentences(maxChars = 240): OperatorFunction<string, string> {
  return (deltas) =>
    new Observable<string>((subscriber) => {
      const splitter = new SentenceSplitter(maxChars);
      return deltas.subscribe({
        next: (delta) => {
          for (const sentence of splitter.push(delta)) subscriber.next(sentence);
        },
        error: (err: unknown) => subscriber.error(err),
        complete: () => {
          const rest = splitter.flush();
          if (rest !== '') subscriber.next(rest);
          subscriber.complete();
        },
      });
    });
}
