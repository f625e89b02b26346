/**
 * People's voices at phone rate (issue 31, item 4): Asterisk's recorded English prompts (8 kHz,
 * test/support/asterisk-prompts.ts) through pocketsphinx as a phone call delivers them, against
 * the same prompts without μ-law, and against decoding at 8 kHz natively with the 16 kHz model's
 * front end set for 8 kHz (`-samprate 8000 -nfft 256`, filters up to `-upperf 3500`: CMU's
 * settings for 8 kHz audio). The first two go through PocketsphinxStt as a phone call's utterance
 * does (`capturedRate` 8000: the phone decoders); the native row drives a decoder directly on this
 * thread, since the provider has no such mode (it lost here).
 *
 * Each setup decodes its prompts in name order on one decoder, so its cepstral mean follows the
 * line as in a long call; every decoder first hears `warmUp` prompts unmeasured.
 */
import { readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PocketsphinxStt } from '../../src/providers/pocketsphinx/pocketsphinx-stt.js';
import { SphinxDecoder } from '../../src/providers/pocketsphinx/sphinx-library.js';
import {
  decoderArgv,
  defaultPocketsphinxOptions,
  modelFiles,
} from '../../src/providers/pocketsphinx/sphinx-options.js';
import { asteriskPrompts, throughMulaw, upTo16k, type AsteriskPrompt } from '../../test/support/asterisk-prompts.js';
import { markdownTable, round } from '../lib/report.js';
import { withCpu } from './engines.js';
import { wordErrorRate, words } from '../../test/support/wer.js';

export interface PhoneRateOptions {
  /** Every n-th prompt is measured with the 16 kHz setups (1: all). */
  step: number;
  /** Every n-th prompt is measured with all setups, the native 8 kHz one included (it decodes slowly). */
  nativeStep: number;
  /** Prompts each decoder hears unmeasured first. */
  warmUp: number;
}

export const defaultPhoneRateOptions: PhoneRateOptions = { step: 1, nativeStep: 6, warmUp: 10 };

export interface PhoneRateRow {
  setup: string;
  prompts: number;
  words: number;
  wer: number;
  cpu_ms_per_audio_s: number;
}

export interface PhoneRateReport {
  prompts_with_words: number;
  speech_s: number;
  all: PhoneRateRow[];
  /** Every `nativeStep`-th prompt, with all three setups. */
  subset: PhoneRateRow[];
  options: PhoneRateOptions;
}

type Setup = { name: string; hear: (prompts: AsteriskPrompt[]) => Promise<string[]> };

const request = { sampleRate: 16_000, model: 'en-us', language: null, capturedRate: 8_000 };

/** The provider on a phone call's decoders, one at a time; `audio` makes what it hears of a prompt. */
function providerSetup(name: string, audio: (p: AsteriskPrompt) => Int16Array, warm: AsteriskPrompt[]): Setup {
  return {
    name,
    hear: async (prompts) => {
      const stt = new PocketsphinxStt({ decoders: 1, threads: 1 });
      try {
        for (const p of warm) await stt.transcribe({ ...request, audio: audio(p) });
        const heard: string[] = [];
        for (const p of prompts) heard.push(await stt.transcribe({ ...request, audio: audio(p) }));
        return heard;
      } finally {
        await stt.close();
      }
    },
  };
}

/** The model's `feat.params` with the filter bank set for 8 kHz audio. */
function nativeFeatParams(hmm: string): string {
  const kept = readFileSync(join(hmm, 'feat.params'), 'utf8')
    .split('\n')
    .filter((l) => l !== '' && !l.startsWith('-upperf'));
  const path = join(tmpdir(), `parley-bench-feat-8k-${process.pid}.params`);
  writeFileSync(path, [...kept, '-upperf 3500', ''].join('\n'));
  return path;
}

function nativeSetup(warm: AsteriskPrompt[]): Setup {
  return {
    name: 'native 8 kHz: μ-law, -samprate 8000 -nfft 256 -upperf 3500',
    hear: async (prompts) => {
      const hmm = modelFiles(defaultPocketsphinxOptions.modelDir).hmm;
      const argv = [...decoderArgv(defaultPocketsphinxOptions), '-samprate', '8000', '-nfft', '256'];
      const featParams = nativeFeatParams(hmm);
      const decoder = new SphinxDecoder([...argv, '-featparams', featParams]);
      unlinkSync(featParams); // read by the decoder as it starts
      const hear = (p: AsteriskPrompt) => {
        decoder.start(null);
        decoder.process(throughMulaw(p.audio));
        return decoder.end();
      };
      try {
        warm.forEach(hear);
        return prompts.map(hear);
      } finally {
        decoder.dispose();
      }
    },
  };
}

async function measure(setup: Setup, prompts: AsteriskPrompt[]): Promise<PhoneRateRow> {
  const { value: heard, cpuMs } = await withCpu(() => setup.hear(prompts));
  const pairs = prompts.map((p, i) => ({ said: p.text, heard: heard[i]! }));
  const audioS = prompts.reduce((s, p) => s + p.audio.length / 8_000, 0);
  console.log(`  phone rate: ${setup.name}: WER ${(wordErrorRate(pairs) * 100).toFixed(1)} % over ${prompts.length}`);
  return {
    setup: setup.name,
    prompts: prompts.length,
    words: pairs.reduce((n, p) => n + words(p.said).length, 0),
    wer: round(wordErrorRate(pairs), 3),
    cpu_ms_per_audio_s: round(cpuMs / audioS, 1),
  };
}

export async function phoneRateSection(overrides: Partial<PhoneRateOptions> = {}): Promise<PhoneRateReport> {
  const options = { ...defaultPhoneRateOptions, ...overrides };
  const prompts = asteriskPrompts();
  const warm = prompts.slice(0, options.warmUp);
  const measured = prompts.slice(options.warmUp);
  const phone = providerSetup(
    'phone call: μ-law, up to 16 kHz, phone decoder',
    (p) => upTo16k(throughMulaw(p.audio)),
    warm,
  );
  const clean = providerSetup('no μ-law: up to 16 kHz, phone decoder', (p) => upTo16k(p.audio), warm);
  const all = measured.filter((_, i) => i % options.step === 0);
  const subset = measured.filter((_, i) => i % options.nativeStep === 0);
  console.log(`stt: phone rate, ${all.length} prompts (${subset.length} with native 8 kHz)…`);
  return {
    prompts_with_words: prompts.length,
    speech_s: round(
      prompts.reduce((s, p) => s + p.audio.length / 8_000, 0),
      1,
    ),
    all: [await measure(phone, all), await measure(clean, all)],
    subset: [await measure(phone, subset), await measure(clean, subset), await measure(nativeSetup(warm), subset)],
    options,
  };
}

export function renderPhoneRateMarkdown(r: PhoneRateReport): string {
  const table = (rows: PhoneRateRow[]) =>
    markdownTable(
      ['setup', 'prompts', 'words', 'WER', 'CPU ms per audio s'],
      rows.map((x) => [x.setup, x.prompts, x.words, `${(x.wer * 100).toFixed(1)} %`, x.cpu_ms_per_audio_s.toFixed(1)]),
      ['left', 'right', 'right', 'right', 'right'],
    );
  return [
    "## People's voices, phone rate (Asterisk's prompts)",
    '',
    table(r.all),
    '',
    `Every ${r.options.nativeStep}th prompt, with native 8 kHz decoding:`,
    '',
    table(r.subset),
    '',
    `Audio: Asterisk's English prompts (Debian asterisk-core-sounds-en-wav, one professional voice recorded at 8 kHz), the ${r.prompts_with_words} that say words (${r.speech_s} s), in name order, the first ${r.options.warmUp} heard unmeasured by each decoder; the reference is the package's transcript (digits read as words). ` +
      "**Phone call**: each prompt μ-law encoded and decoded, then up to 16 kHz with Parley's resampler, transcribed whole on a phone decoder (`capturedRate` 8000), as a Twilio call's utterance is. **No μ-law**: the same without the μ-law step. " +
      "**Native 8 kHz**: μ-law, then a decoder at `-samprate 8000 -nfft 256` with the model's filter bank cut at `-upperf 3500` (the 16 kHz model's features are then computed over other filters than it was trained on). CPU = process CPU time per audio second.",
  ].join('\n');
}
