/**
 * The turn-taking bench's scripted corpus, spoken at bench time (nothing committed) by Debian's
 * flite (voice slt, 16 kHz: speech a real recogniser hears word for word, so the scripted and the
 * pocketsphinx rows hear the same audio) or espeak-ng (`TURN_BENCH_VOICE=espeak`): each phrase
 * synthesized once, resampled to 16 kHz and trimmed to its speech, so a clip starts at the speech
 * onset and ends at the speech end. Scenarios string phrases together with pauses.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parseWav } from '../../src/audio/wav.js';
import { trimmed } from '../../test/support/human-speech.js';
import { resample } from '../../test/support/pcm.js';

const run = promisify(execFile);
export const corpusRate = 16_000;

/** A phrase as the user says it: its words (what the fake STT hears) and its trimmed audio. */
export interface Phrase {
  text: string;
  samples: Int16Array;
}

/** One part of a user's utterance: a phrase, or a pause (ms of silence) between phrases. */
export type Part = { phrase: Phrase } | { pauseMs: number };

export type ScenarioKind =
  'question' | 'statement' | 'pause' | 'multi' | 'number' | 'email' | 'backchannel' | 'noise' | 'barge-in';

/**
 * `question`/`statement`/`pause`/`multi`/`number`/`email`: one utterance, answered once (latency,
 * splits, misses); `multi` is several sentences with the speaker's own pauses.
 * `backchannel`/`noise`/`barge-in`: a question, then `over` spoken over the agent's answer.
 */
export interface Scenario {
  name: string;
  kind: ScenarioKind;
  utterance: Part[];
  over?: Phrase;
}

async function espeakWav(text: string): Promise<Uint8Array> {
  const { stdout } = await run('espeak-ng', ['-v', 'en-us', '-s', '175', '--stdout', text], {
    encoding: 'buffer',
    maxBuffer: 64 * 1024 * 1024,
  });
  return new Uint8Array(stdout);
}

/** flite writes its WAV to a file (it cannot open a socket as /dev/stdout); the text goes in one too. */
async function fliteWav(text: string): Promise<Uint8Array> {
  const dir = await mkdtemp(join(tmpdir(), 'parley-corpus-'));
  try {
    await writeFile(join(dir, 'text.txt'), text);
    await run('flite', ['-voice', 'slt', '-f', join(dir, 'text.txt'), '-o', join(dir, 'out.wav')]);
    return new Uint8Array(await readFile(join(dir, 'out.wav')));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Which program speaks the corpus. */
export const corpusVoice = process.env['TURN_BENCH_VOICE'] === 'espeak' ? 'espeak-ng en-us' : 'flite slt';

async function say(text: string): Promise<Phrase> {
  const wav = parseWav(corpusVoice === 'flite slt' ? await fliteWav(text) : await espeakWav(text));
  return { text, samples: trimmed(resample(wav.samples, wav.sampleRate, corpusRate), corpusRate) };
}

/** A cough-like burst: 250 ms of noise with a sharp attack and an exponential decay (seeded). */
export function noiseBurst(seed = 7): Phrase {
  const n = corpusRate / 4;
  const samples = new Int16Array(n);
  let x = seed;
  let last = 0;
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    const white = x / 0x3fffffff - 1;
    last = 0.6 * last + 0.4 * white; // a little low-passed, like a cough's breathy spectrum
    const envelope = Math.min(1, i / 80) * Math.exp(-i / (corpusRate * 0.08));
    samples[i] = Math.round(last * envelope * 20_000);
  }
  return { text: '', samples };
}

const p = (phrase: Phrase): Part => ({ phrase });
const pause = (pauseMs: number): Part => ({ pauseMs });

/** The scenarios; `quick` keeps one of each kind (and two pause lengths). */
export async function buildCorpus(quick: boolean): Promise<Scenario[]> {
  const questions = await Promise.all(
    [
      'What time do you open tomorrow?',
      'Can I book a table for four people tonight?',
      'Do you have any vegetarian dishes on the menu?',
      'How much does the delivery cost?',
    ].map(say),
  );
  const [want, tonight] = await Promise.all(['I would like to book a table', 'for two people tonight.'].map(say));
  const [think1, think2] = await Promise.all(['So I was wondering, um', 'whether you deliver to my area.'].map(say));
  const numberParts = await Promise.all(
    ['My number is five five five', 'one two three', 'four five six seven.'].map(say),
  );
  const emailParts = await Promise.all(['My email is john dot smith', 'at example', 'dot com.'].map(say));
  const backchannels = await Promise.all(['Uh-huh.', 'Okay.', 'Mm-hmm.'].map(say));
  const stop = await say('Stop, wait a second.');
  const cough = noiseBurst();

  const pauses = quick ? [600, 900] : [300, 500, 700, 900];
  const scenarios: Scenario[] = [
    ...questions.slice(0, quick ? 2 : 4).map((q, i): Scenario => ({
      name: `question ${i + 1}`,
      kind: 'question',
      utterance: [p(q)],
    })),
    ...pauses.map((ms): Scenario => ({
      name: `thinking pause ${ms} ms`,
      kind: 'pause',
      utterance: [p(want!), pause(ms), p(tonight!)],
    })),
    ...(quick
      ? []
      : [{ name: 'filler pause 800 ms', kind: 'pause' as const, utterance: [p(think1!), pause(800), p(think2!)] }]),
    {
      name: 'phone number, pauses 600/800 ms',
      kind: 'number',
      utterance: [p(numberParts[0]!), pause(600), p(numberParts[1]!), pause(800), p(numberParts[2]!)],
    },
    {
      name: 'email, pauses 500/700 ms',
      kind: 'email',
      utterance: [p(emailParts[0]!), pause(500), p(emailParts[1]!), pause(700), p(emailParts[2]!)],
    },
    ...backchannels.slice(0, quick ? 2 : 3).map((b): Scenario => ({
      name: `backchannel "${b.text}"`,
      kind: 'backchannel',
      utterance: [p(questions[0]!)],
      over: b,
    })),
    { name: 'cough-like noise burst', kind: 'noise', utterance: [p(questions[1]!)], over: cough },
    { name: 'barge-in "stop, wait a second"', kind: 'barge-in', utterance: [p(questions[2]!)], over: stop },
  ];
  if (!quick) {
    scenarios.push({
      name: 'cough-like noise burst 2',
      kind: 'noise',
      utterance: [p(questions[3]!)],
      over: noiseBurst(11),
    });
    scenarios.push({ name: 'barge-in 2', kind: 'barge-in', utterance: [p(questions[0]!)], over: stop });
  }
  return scenarios;
}

/** Every phrase of the corpus, for the fake STT to recognise. */
export function phrasesOf(scenarios: Scenario[]): Phrase[] {
  const out = new Set<Phrase>();
  for (const s of scenarios) {
    for (const part of s.utterance) if ('phrase' in part) out.add(part.phrase);
    if (s.over !== undefined && s.over.text !== '') out.add(s.over);
  }
  return [...out];
}
