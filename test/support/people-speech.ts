import { readFileSync } from 'node:fs';
import { parseWav } from '../../src/audio/wav.js';
import { asteriskSoundsDir, upTo16k } from './asterisk-prompts.js';

/**
 * People's recorded voices for turn-taking tests and the `turn-taking-people` bench: prompts of
 * Debian's `asterisk-core-sounds-en-wav` (a person reading IVR prompts, 8 kHz), as chosen and
 * word-timed by scripts/align-prompts.ts into test/fixtures/audio/people-prompts.json. The WAVs
 * are read from the system (installed by .ci/run and README "Setup"), upsampled to 16 kHz as the
 * pipeline upsamples a phone line, and trimmed to their speech.
 */

const rate = 16_000;

/** `complete`: one whole sentence; `cut`: one sentence cut after word `cutAfter`; `multi`: 2–3 sentences. */
export type PromptKind = 'complete' | 'cut' | 'multi';

export interface PromptWord {
  word: string;
  /** Seconds from the start of the recording. */
  start: number;
  end: number;
}

export interface Prompt {
  kind: PromptKind;
  name: string;
  text: string;
  words: PromptWord[];
  /** `cut` prompts: the index of the word the pause follows. */
  cutAfter?: number;
}

/** A stretch of a person's speech and the words in it. */
export interface PeoplePhrase {
  text: string;
  samples: Int16Array;
}

let cached: Prompt[] | undefined;

/** The chosen prompts, in the fixture's order. */
export function peoplePrompts(kind?: PromptKind): Prompt[] {
  cached ??= (
    JSON.parse(readFileSync(new URL('../fixtures/audio/people-prompts.json', import.meta.url), 'utf8')) as {
      prompts: Prompt[];
    }
  ).prompts;
  return kind === undefined ? cached : cached.filter((p) => p.kind === kind);
}

/** The prompt's recording at 16 kHz, from its first word to its last (its own pauses kept). */
export function promptSpeech(prompt: Prompt): PeoplePhrase {
  const audio = upsampled(prompt.name);
  const from = at(prompt.words[0]!.start);
  const to = at(prompt.words.at(-1)!.end);
  return { text: prompt.text, samples: audio.slice(from, to) };
}

/**
 * A `cut` prompt's two halves, each trimmed to its words: the caller is to pause between them
 * (inside a clause: no punctuation follows the first half's last word).
 */
export function promptHalves(prompt: Prompt): [PeoplePhrase, PeoplePhrase] {
  const cut = prompt.cutAfter;
  if (cut === undefined) throw new Error(`${prompt.name} is not a cut prompt`);
  const audio = upsampled(prompt.name);
  const words = prompt.words;
  const tokens = prompt.text.split(/\s+/).filter((t) => /[a-z]/i.test(t));
  return [
    { text: tokens.slice(0, cut + 1).join(' '), samples: audio.slice(at(words[0]!.start), at(words[cut]!.end)) },
    { text: tokens.slice(cut + 1).join(' '), samples: audio.slice(at(words[cut + 1]!.start), at(words.at(-1)!.end)) },
  ];
}

/** The words a recogniser would write for `text`: lower case, no punctuation. */
export function spokenWords(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z' ]/g, ' ')
    .split(/\s+/)
    .filter(Boolean)
    .join(' ');
}

const at = (seconds: number) => Math.round(seconds * rate);

function upsampled(name: string): Int16Array {
  return upTo16k(parseWav(readFileSync(`${asteriskSoundsDir}/${name}.wav`)).samples);
}
