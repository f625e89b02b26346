/**
 * Picks people's recorded prompts for the turn-taking tests and bench, and times their words.
 *
 * The voices are Debian's `asterisk-core-sounds-en-wav` (a person reading 8 kHz IVR prompts; the
 * texts are `asterisk-core-sounds-en`'s core-sounds-en.txt.gz). Nothing of them is committed but
 * this choice: which prompts, and where each word ends, found by forced alignment (pocketsphinx
 * decoding each prompt under a grammar that is exactly its text, then its word segments). The
 * result is test/fixtures/audio/people-prompts.json; test/support/people-speech.ts reads it and the
 * installed WAVs.
 *
 *   node --import tsx scripts/align-prompts.ts
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import koffi from 'koffi';
import { parseWav } from '../src/audio/wav.js';
import { Resampler } from '../src/audio/resampler.js';
import { uniform } from './seeded-random.js';

const soundsDir = '/usr/share/asterisk/sounds/en';
const textsFile = '/usr/share/doc/asterisk-core-sounds-en/core-sounds-en.txt.gz';
const modelDir = '/usr/share/pocketsphinx/model/en-us';
const out = new URL('../test/fixtures/audio/people-prompts.json', import.meta.url).pathname;

/** How many of each kind (README "Turn-taking", bench/README.md "Turn-taking on people's voices"). */
const counts = { complete: 30, cut: 16, multi: 8 };

interface Word {
  word: string;
  /** Seconds from the start of the recording. */
  start: number;
  end: number;
}

const sb = koffi.load('libsphinxbase.so.3');
const ps = koffi.load('libpocketsphinx.so.3');
const c = {
  args: ps.func('void *ps_args()'),
  parse: sb.func('void *cmd_ln_parse_r(void *inout, void *defn, int argc, const char **argv, int strict)'),
  init: ps.func('void *ps_init(void *config)'),
  start: ps.func('int ps_start_utt(void *ps)'),
  raw: ps.func('int ps_process_raw(void *ps, const int16_t *data, size_t n, int no_search, int full_utt)'),
  end: ps.func('int ps_end_utt(void *ps)'),
  hyp: ps.func('const char *ps_get_hyp(void *ps, _Out_ int32_t *score)'),
  jsgf: ps.func('int ps_set_jsgf_string(void *ps, const char *name, const char *jsgf)'),
  search: ps.func('int ps_set_search(void *ps, const char *name)'),
  segs: ps.func('void *ps_seg_iter(void *ps)'),
  next: ps.func('void *ps_seg_next(void *seg)'),
  word: ps.func('const char *ps_seg_word(void *seg)'),
  frames: ps.func('void ps_seg_frames(void *seg, _Out_ int *sf, _Out_ int *ef)'),
  lookup: ps.func('const char *ps_lookup_word(void *ps, const char *word)'),
};
const argv = [
  '-hmm',
  `${modelDir}/en-us`,
  '-lm',
  `${modelDir}/en-us.lm.bin`,
  '-dict',
  `${modelDir}/cmudict-en-us.dict`,
];
const decoder = c.init(c.parse(null, c.args(), argv.length + 2, [...argv, '-logfn', '/dev/null'], 1));

/** A prompt's recording at 16 kHz, as the pipeline hears an 8 kHz line. */
function audioOf(name: string): Int16Array {
  const wav = parseWav(readFileSync(`${soundsDir}/${name}.wav`));
  const resampler = new Resampler(wav.sampleRate, 16_000);
  const head = resampler.push(wav.samples);
  const tail = resampler.flush();
  const all = new Int16Array(head.length + tail.length);
  all.set(head);
  all.set(tail, head.length);
  return all;
}

/** The words of `text` with their times, or null when one is not in the dictionary or alignment fails. */
function align(name: string, text: string, grammar: number): Word[] | null {
  const words = spoken(text);
  if (words.length === 0 || words.some((w) => c.lookup(decoder, w) === null)) return null;
  const id = `p${grammar}`;
  if (c.jsgf(decoder, id, `#JSGF V1.0; grammar ${id}; public <s> = ${words.join(' ')};`) < 0) return null;
  c.search(decoder, id);
  const audio = audioOf(name);
  c.start(decoder);
  c.raw(decoder, audio, audio.length, 0, 1);
  c.end(decoder);
  if (!c.hyp(decoder, [0])) return null;
  const timed: Word[] = [];
  for (let seg = c.segs(decoder); seg !== null; seg = c.next(seg)) {
    const word = (c.word(seg) as string).replace(/\(\d+\)$/, '');
    const sf = [0];
    const ef = [0];
    c.frames(seg, sf, ef);
    if (!word.startsWith('<') && !word.startsWith('['))
      timed.push({ word, start: sf[0]! / 100, end: (ef[0]! + 1) / 100 });
  }
  return timed.length === words.length ? timed : null;
}

/** The words a recogniser would write for `text`: lower case, no punctuation. */
function spoken(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/[^a-z' ]/g, ' ')
    .split(/\s+/)
    .filter(Boolean);
}

const sentences = (text: string) => text.split(/(?<=[.?!])\s+/).filter((s) => s.trim() !== '');
/** Whole sentences a person would say: a capital first, a full stop, ? or ! last, no "..." fragment, no digits, * or [tones]. */
const wellFormed = (text: string) =>
  /^[A-Z]/.test(text) && /[.?!]$/.test(text) && !text.includes('...') && !/[\d[\]*]/.test(text);

/** Words that open a new clause: a pause before one is between clauses, not inside one. */
const clauseOpeners = new Set(
  'and or but so then while when if because which that who where until after before'.split(' '),
);
/** Words a phrase that may follow a whole clause opens with ("That pin is invalid | for this conference"). */
const prepositions = new Set('for to with in into on at by from of about'.split(' '));

const texts = gunzipSync(readFileSync(textsFile)).toString('utf8');
const prompts = texts
  .split('\n')
  .map((line) => /^([a-z0-9-]+):\s*(.+)$/.exec(line))
  .filter((m): m is RegExpExecArray => m !== null && existsSync(`${soundsDir}/${m[1]}.wav`) && wellFormed(m[2]!))
  .map((m) => ({ name: m[1]!, text: m[2]!.trim() }));
const random = uniform(31);
const shuffled = prompts
  .map((p) => ({ p, key: random() }))
  .sort((a, b) => a.key - b.key)
  .map(({ p }) => p);

const seen = new Set<string>();
const chosen: { kind: keyof typeof counts; name: string; text: string; words: Word[]; cutAfter?: number }[] = [];
let grammar = 0;
for (const { name, text } of shuffled) {
  const key = spoken(text).join(' ');
  if (seen.has(key)) continue;
  const n = sentences(text).length;
  const count = spoken(text).length;
  const kind =
    n >= 2 && n <= 3
      ? 'multi'
      : n === 1 && count >= 4
        ? count >= 7 && taken('cut') < counts.cut
          ? 'cut'
          : 'complete'
        : null;
  if (kind === null || taken(kind) >= counts[kind]) continue;
  const words = align(name, text, grammar++);
  if (words === null) continue;
  seen.add(key);
  chosen.push({ kind, name, text, words, ...(kind === 'cut' ? { cutAfter: cutPoint(text) } : {}) });
  if (chosen.length === counts.complete + counts.cut + counts.multi) break;
}

function taken(kind: keyof typeof counts): number {
  return chosen.filter((p) => p.kind === kind).length;
}

/**
 * Where a sentence is cut for a pause inside a clause: after the word nearest its middle that no
 * punctuation follows and no clause opener ("and", "or", "while"…) or preposition comes after (a
 * whole clause may end before either: "That pin is invalid | for this conference"), with at least
 * two words on each side (the index of that word).
 */
function cutPoint(text: string): number {
  const tokens = text.split(/\s+/).filter((t) => /[a-z]/i.test(t));
  const middle = (tokens.length - 1) / 2;
  const inside = (t: string, i: number) =>
    i >= 1 &&
    i <= tokens.length - 3 &&
    !/[,;:.?!]$/.test(t) &&
    !clauseOpeners.has(tokens[i + 1]!.toLowerCase()) &&
    !prepositions.has(tokens[i + 1]!.toLowerCase());
  const candidates = tokens
    .map((t, i) => ({ i, ok: inside(t, i) }))
    .filter((c) => c.ok)
    .sort((a, b) => Math.abs(a.i - middle) - Math.abs(b.i - middle));
  return candidates[0]!.i;
}

const version = execFileSync('dpkg-query', ['-W', '-f=${Version}', 'asterisk-core-sounds-en-wav']).toString();
writeFileSync(
  out,
  `${JSON.stringify({ source: `asterisk-core-sounds-en-wav ${version}`, prompts: chosen }, null, 2)}\n`,
);
console.log(
  `wrote ${out}: ${Object.keys(counts)
    .map((k) => `${taken(k as keyof typeof counts)} ${k}`)
    .join(', ')}`,
);
