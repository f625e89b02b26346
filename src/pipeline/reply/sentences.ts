import { filter, map, Observable, type OperatorFunction } from 'rxjs';

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
    return this.cut(delta).map((c) => c.piece);
  }

  /**
   * Adds a piece of text; returns the pieces it completed, each with `end`: how much of `delta`
   * comes before its cut (what follows belongs to the next piece).
   */
  cut(delta: string): { piece: string; end: number }[] {
    const held = this.buffer.length;
    this.buffer += delta;
    const out: { piece: string; end: number }[] = [];
    let taken = 0;
    for (;;) {
      const match = (this.pieces === 0 ? clauseEnd : sentenceEnd).exec(this.buffer);
      let cut = match === null ? -1 : match.index + match[0].length;
      if (cut < 0 && this.buffer.length > this.maxChars) {
        const space = this.buffer.lastIndexOf(' ', this.maxChars);
        cut = space > 0 ? space + 1 : this.maxChars;
      }
      if (cut < 0) return out;
      const piece = this.buffer.slice(0, cut).trim();
      this.buffer = this.buffer.slice(cut);
      taken += cut;
      if (piece !== '') {
        out.push({ piece, end: Math.max(0, taken - held) });
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

/**
 * An answer as it goes to speech: its text as it arrives (`text`, the deltas as they are, cut where
 * a piece ends), and after the text of each piece, that piece (`sentence`: the first may be a clause).
 */
export type SpeechText = { type: 'text'; text: string } | { type: 'sentence'; text: string };

/** Text deltas in, the SpeechText of the answer out (one splitter per subscription). */
export function splitSpeech(maxChars = 240): OperatorFunction<string, SpeechText> {
  return (deltas) =>
    new Observable<SpeechText>((subscriber) => {
      const splitter = new SentenceSplitter(maxChars);
      return deltas.subscribe({
        next: (delta) => {
          let at = 0;
          for (const { piece, end } of splitter.cut(delta)) {
            if (end > at) subscriber.next({ type: 'text', text: delta.slice(at, end) });
            at = Math.max(at, end);
            subscriber.next({ type: 'sentence', text: piece });
          }
          if (at < delta.length) subscriber.next({ type: 'text', text: delta.slice(at) });
        },
        error: (err: unknown) => subscriber.error(err),
        complete: () => {
          const rest = splitter.flush();
          if (rest !== '') subscriber.next({ type: 'sentence', text: rest });
          subscriber.complete();
        },
      });
    });
}

/** The pieces of an answer's SpeechText: complete sentences (the first may be a clause). */
export function sentencesOf(speech: Observable<SpeechText>): Observable<string> {
  return speech.pipe(
    filter((s) => s.type === 'sentence'),
    map((s) => s.text),
  );
}

/** Text deltas in, complete sentences out (the first may be a clause; one splitter per subscription). */
export function splitSentences(maxChars = 240): OperatorFunction<string, string> {
  return (deltas) => sentencesOf(deltas.pipe(splitSpeech(maxChars)));
}
