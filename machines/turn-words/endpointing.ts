import { wordsOf } from './phrases.js';

/**
 * Endpointing that reads the words (like Vapi's `transcriptionEndpointingPlan`): once the
 * utterance so far is transcribed, how long the user must stay silent before their turn is over
 * depends on how the transcript ends. Pure; the session machine calls it.
 */

/** The agent's waits: silence after the end of speech, in ms. */
export interface EndpointingWaits {
  /** The transcript ends with terminal punctuation: a finished sentence. */
  punctuationMs: number;
  /** It ends with a digit or inside a number, an email address or a spelled sequence. */
  numberMs: number;
  /** It ends with a conjunction or a filler: the user is not done. The longest wait. */
  maxMs: number;
  /** Anything else. */
  defaultMs: number;
}

/**
 * `statement`: an unpunctuated transcript that evidence from the audio and the recogniser's
 * language model judged a finished statement (src/pipeline/turn/statement-end.ts). It waits as a
 * finished sentence does.
 *
 * `question`: an unpunctuated transcript (a recogniser such as pocketsphinx writes no punctuation)
 * that reads as a whole question: it opens with a question word or an inverted auxiliary, has at
 * least four words, and its last word can end a sentence. It waits as a finished sentence does,
 * unless the audio says the voice stopped at full strength (cut off mid-sentence).
 */
export type TranscriptEnding = 'punctuation' | 'question' | 'statement' | 'number' | 'continuation' | 'other';

const continuations = new Set([
  'and',
  'or',
  'but',
  'so',
  'because',
  'cause',
  'if',
  'then',
  'than',
  'that',
  'which',
  'with',
  'to',
  'for',
  'of',
  'the',
  'a',
  'an',
  'my',
  'is',
  'at',
  'in',
  'on',
  'um',
  'uh',
  'er',
  'erm',
  'ah',
  'hmm',
  'like',
  'also',
]);
const numberWords = new Set([
  'zero',
  'oh',
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
  'ten',
  'eleven',
  'twelve',
  'twenty',
  'thirty',
  'forty',
  'fifty',
  'sixty',
  'seventy',
  'eighty',
  'ninety',
  'hundred',
  'thousand',
  'double',
  'triple',
  'dot',
  'dash',
  'plus',
]);

/** Words a question opens with: wh-words, and auxiliaries put first ("can I", "do you", "is it"). */
const questionOpeners = new Set(
  `what whats what's when where who whom whose why which how can could would will should shall may might do does did is are was were have has had am`.split(
    ' ',
  ),
);

/**
 * Last words that leave a question open ("can you tell me", "what about your", "is it"): a
 * question ending in one of these waits like any other transcript, on top of `continuations`.
 */
const openEndings = new Set(
  `me you i we they he she it us them him her your our their his its this these those some any about from into by are was were be do does did can could would will should have has had get tell know want need what when where who how which why not don't can't`.split(
    ' ',
  ),
);

/**
 * How `transcript` ends, for the wait. Numbers win over punctuation: STT ends "555 0123." with a
 * dot. `complete`: what the audio said of it (src/pipeline/turn/statement-end.ts). True: a finished
 * statement (only an ending that would otherwise be `other` becomes `statement`: a trailing "and"
 * or a number still waits longer). False: unfinished, the voice stopped at full strength (a
 * `question` becomes `other`). Undefined: nothing judged it.
 */
export function transcriptEnding(transcript: string, complete?: boolean): TranscriptEnding {
  const text = transcript.trim();
  const words = wordsOf(text);
  const last = words.at(-1);
  if (last === undefined) return 'other';
  const terminal = /[.?!]["')\]]*$/.test(text) && !/(\.\.\.|…)$/.test(text);
  const previous = words.at(-2) ?? '';
  // "for two." is a finished sentence; "five five five." is a number being read out
  const numberWord = numberWords.has(last) && (!terminal || numberWords.has(previous) || /\d/.test(previous));
  if (/\d/.test(last) || numberWord || last.includes('@') || spelling(words)) return 'number';
  if (/(\.\.\.|…|[,;:\-–—])$/.test(text) || continuations.has(last)) return 'continuation';
  if (terminal) return 'punctuation';
  if (unpunctuatedQuestion(text, words)) return complete === false ? 'other' : 'question';
  return complete === true ? 'statement' : 'other';
}

/** The silence (ms after the end of speech) that ends a turn whose transcript so far is `transcript` (`complete`: see `transcriptEnding`). */
export function endpointingWaitMs(transcript: string, waits: EndpointingWaits, complete?: boolean): number {
  switch (transcriptEnding(transcript, complete)) {
    case 'punctuation':
    case 'question':
    case 'statement':
      return waits.punctuationMs;
    case 'number':
      return waits.numberMs;
    case 'continuation':
      return waits.maxMs;
    case 'other':
      return waits.defaultMs;
  }
}

/** A whole question from a recogniser that writes no punctuation at all (see `question`). */
function unpunctuatedQuestion(text: string, words: readonly string[]): boolean {
  if (/[.?!,;:]/.test(text) || words.length < 4) return false;
  return questionOpeners.has(words[0]!) && !openEndings.has(words.at(-1)!);
}

/** The last words are single letters or digits spelled out: "J O H N", "a b c". */
function spelling(words: readonly string[]): boolean {
  const tail = words.slice(-2);
  return tail.length === 2 && tail.every((w) => /^\p{L}$/u.test(w) && w !== 'a' && w !== 'i');
}
