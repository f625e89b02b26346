/**
 * The barge-in bench's corpus, all at phone rate (8 kHz, what a caller sounds like): people talking
 * over the agent (Asterisk's recorded English prompts, test/support/human-speech.ts), and
 * acknowledgements spoken at bench time by flite (voices slt, rms, awb) and espeak-ng, with
 * cough-like noise bursts. Each clip is trimmed to its speech, so it starts at the speech onset.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parseWav } from '../../src/audio/wav.js';
import { humanSpeech, trimmed } from '../../test/support/human-speech.js';
import { resample } from '../../test/support/pcm.js';
import { noiseBurst } from '../turn-taking/corpus.js';

const run = promisify(execFile);
export const corpusRate = 8_000;

export interface Clip {
  name: string;
  /** What is said ('' for noise). */
  text: string;
  kind: 'interruption' | 'acknowledgement';
  samples: Int16Array;
}

/** Prompts of 1.4–5 s in a woman's recorded voice: what a caller might say over the agent. */
const interruptions = [
  'vm-nobodyavail',
  'queue-thankyou',
  'pls-hold-while-try',
  'cannot-complete-as-dialed',
  'privacy-incorrect',
  'vm-nonumber',
  'vm-sorry',
  'speed-dial-empty',
  'demo-nomatch',
  'vm-mailboxfull',
  'privacy-unident',
  'ss-noservice',
  'queue-youarenext',
  'tt-weasels',
  'tt-monkeysintro',
  'vm-savefolder',
  'feature-not-avail-line',
  'sorry-youre-having-problems',
  'conf-onlyperson',
  'dir-nomatch',
  'vm-msgsaved',
  'tt-somethingwrong',
  'info-about-last-call',
  'queue-callswaiting',
  'vm-rec-busy',
];

const acknowledgements = ['uh-huh', 'okay', 'mm-hmm', 'yeah', 'right', 'okay yeah', 'i see', 'sure', 'got it', 'yep'];
const voices = ['flite slt', 'flite rms', 'flite awb', 'espeak-ng'] as const;

function toRate(samples: Int16Array, from: number): Int16Array {
  return from === corpusRate ? samples : resample(samples, from, corpusRate);
}

async function synthesize(text: string, voice: (typeof voices)[number]): Promise<Int16Array> {
  let wav: Uint8Array;
  if (voice === 'espeak-ng') {
    const { stdout } = await run('espeak-ng', ['-v', 'en-us', '-s', '175', '--stdout', text], {
      encoding: 'buffer',
      maxBuffer: 16 * 1024 * 1024,
    });
    wav = new Uint8Array(stdout);
  } else {
    const dir = await mkdtemp(join(tmpdir(), 'parley-barge-in-'));
    try {
      await writeFile(join(dir, 'text.txt'), text);
      await run('flite', ['-voice', voice.split(' ')[1]!, '-f', join(dir, 'text.txt'), '-o', join(dir, 'out.wav')]);
      wav = new Uint8Array(await readFile(join(dir, 'out.wav')));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
  const audio = parseWav(wav);
  return trimmed(toRate(audio.samples, audio.sampleRate), corpusRate);
}

/** The corpus; `quick` keeps 6 interruptions and 8 acknowledgements. */
export async function buildCorpus(quick: boolean): Promise<Clip[]> {
  const people = (quick ? interruptions.filter((_, i) => i % 4 === 0) : interruptions).map((name): Clip => {
    const speech = humanSpeech(name);
    return { name, text: speech.text, kind: 'interruption', samples: toRate(speech.samples, speech.sampleRate) };
  });
  const said = (quick ? acknowledgements.slice(0, 4) : acknowledgements).flatMap((text) =>
    (quick ? voices.filter((_, i) => i % 2 === 0) : voices).map(async (voice): Promise<Clip> => ({
      name: `${voice} "${text}"`,
      text,
      kind: 'acknowledgement',
      samples: await synthesize(text, voice),
    })),
  );
  const noises = (quick ? [7] : [7, 11, 23]).map((seed): Clip => ({
    name: `noise burst ${seed}`,
    text: '',
    kind: 'acknowledgement',
    samples: toRate(noiseBurst(seed).samples, 16_000),
  }));
  return [...people, ...(await Promise.all(said)), ...noises];
}
