/**
 * Vocabulary boosting (issue 31, item 5): an agent's expected phrases as a boost of pocketsphinx's
 * language model, against no phrases and against the grammar that hears the phrases alone.
 *
 * - Rare names and terms (bench/stt/vocabulary-corpus.ts) in flite's four voices and espeak-ng,
 *   wide band, with the terms as phrases at several boost weights; general sentences (the `stt`
 *   corpus) with the same phrases, to see what a boost costs speech that has none of them.
 * - Asterisk's prompts with IVR terms ("conference", "pound key", "super awesome company"), over
 *   the phone path, and prompts with none of them.
 * - A phone menu: its answers, and sentences off the menu, with a grammar, a boost and neither.
 * - The pronunciation guess for new words, checked against the dictionary's own.
 */
import { PocketsphinxStt } from '../../src/providers/pocketsphinx/pocketsphinx-stt.js';
import type { PocketsphinxOptions } from '../../src/providers/pocketsphinx/sphinx-options.js';
import { boostWeight } from '../../src/providers/pocketsphinx/sphinx-boost.js';
import { asteriskPrompts, throughMulaw, upTo16k } from '../../test/support/asterisk-prompts.js';
import { say } from '../../test/support/espeak-speech.js';
import { fliteSay, type FliteVoice } from '../../test/support/flite-speech.js';
import { overPhoneLine } from '../../test/support/phone-line.js';
import { wordErrorRate, words } from '../../test/support/wer.js';
import { round } from '../lib/report.js';
import { sttBenchLines } from './corpus.js';
import { withCpu } from './engines.js';
import { letterRules, type LetterRulesRow } from './vocabulary-letters.js';
import {
  countTerms,
  ivrTerms,
  menuPhrases,
  occurrences,
  offMenuLines,
  rareLines,
  rareTerms,
} from './vocabulary-corpus.js';

export interface VocabularyOptions {
  /** Boost weights tried on the rare-terms corpus (the default weight is always among them). */
  weights: number[];
  /** Every n-th Asterisk prompt (1: all). */
  promptStep: number;
}

export const defaultVocabularyOptions: VocabularyOptions = { weights: [0.005, boostWeight, 0.3], promptStep: 1 };

interface Clip {
  said: string;
  audio: Int16Array;
  capturedRate?: number;
}

export interface TermRow {
  corpus: string;
  setup: string;
  utterances: number;
  terms_said: number;
  terms_heard: number;
  /** Terms heard where none was said (or more than said). */
  terms_wrongly_heard: number;
  wer: number;
  cpu_ms_per_audio_s: number;
}

export interface MenuRow {
  band: 'phone' | 'wide';
  setup: string;
  /** Menu answers heard exactly. */
  answers_exact: number;
  answers: number;
  /** Off-menu sentences: heard as nothing, as a menu phrase, and their WER. */
  off_menu_nothing: number;
  off_menu_as_phrase: number;
  off_menu: number;
  off_menu_wer: number;
}

export interface VocabularyReport {
  weight: number;
  terms: TermRow[];
  menu: MenuRow[];
  letters: LetterRulesRow;
  options: VocabularyOptions;
}

const voices: readonly FliteVoice[] = ['slt', 'rms', 'awb', 'kal16'];
const request = { sampleRate: 16_000, model: 'en-us', language: null };

/** Each line in the next flite voice, and in espeak-ng. */
function spoken(lines: readonly string[]): Clip[] {
  return lines.flatMap((said, i) => [
    { said, audio: fliteSay(said, voices[i % voices.length]) },
    { said, audio: say(said) },
  ]);
}

/** `clips` transcribed one after another on one decoder with `phrases` (none: []). */
async function hear(
  clips: readonly Clip[],
  phrases: readonly string[],
  options: Partial<PocketsphinxOptions> = {},
  phrasesOnly = false,
): Promise<{ heard: string[]; cpuMs: number; audioS: number }> {
  const stt = new PocketsphinxStt({ decoders: 1, threads: 1, ...options });
  try {
    const { value, cpuMs } = await withCpu(async () => {
      const heard: string[] = [];
      for (const c of clips) heard.push(await stt.transcribe({ ...request, ...c, phrases: [...phrases], phrasesOnly }));
      return heard;
    });
    return { heard: value, cpuMs, audioS: clips.reduce((s, c) => s + c.audio.length / 16_000, 0) };
  } finally {
    await stt.close();
  }
}

async function termRow(
  corpus: string,
  setup: string,
  clips: readonly Clip[],
  terms: readonly string[],
  phrases: readonly string[],
  options: Partial<PocketsphinxOptions> = {},
): Promise<TermRow> {
  const { heard, cpuMs, audioS } = await hear(clips, phrases, options);
  const pairs = clips.map((c, i) => ({ said: c.said, heard: heard[i]! }));
  const count = countTerms(pairs, terms);
  const row = {
    corpus,
    setup,
    utterances: clips.length,
    terms_said: count.said,
    terms_heard: count.heard,
    terms_wrongly_heard: count.extra,
    wer: round(wordErrorRate(pairs), 3),
    cpu_ms_per_audio_s: round(cpuMs / audioS, 1),
  };
  console.log(`  vocabulary: ${JSON.stringify(row)}`);
  return row;
}

async function menuRows(band: 'phone' | 'wide'): Promise<MenuRow[]> {
  const line = band === 'phone' ? overPhoneLine : (a: Int16Array) => a;
  const capturedRate = band === 'phone' ? 8_000 : 16_000;
  const clip = (c: Clip) => ({ ...c, audio: line(c.audio), capturedRate });
  const answers = spoken(menuPhrases).map(clip);
  const off = spoken(offMenuLines).map(clip);
  const rows: MenuRow[] = [];
  for (const [setup, phrases, phrasesOnly] of [
    ['no phrases', [], false],
    ['grammar (expected_phrases_only)', menuPhrases, true],
    ['boost', menuPhrases, false],
  ] as const) {
    const heard = (await hear([...answers, ...off], phrases, {}, phrasesOnly)).heard;
    const offHeard = heard.slice(answers.length);
    const exact = (a: string, b: string) => words(a).join(' ') === words(b).join(' ');
    rows.push({
      band,
      setup,
      answers_exact: answers.filter((a, i) => exact(a.said, heard[i]!)).length,
      answers: answers.length,
      off_menu_nothing: offHeard.filter((h) => h.trim() === '').length,
      off_menu_as_phrase: offHeard.filter((h) => menuPhrases.some((p) => exact(p, h))).length,
      off_menu: off.length,
      off_menu_wer: round(wordErrorRate(off.map((o, i) => ({ said: o.said, heard: offHeard[i]! }))), 3),
    });
    console.log(`  menu: ${JSON.stringify(rows.at(-1))}`);
  }
  return rows;
}

export async function vocabularySection(overrides: Partial<VocabularyOptions> = {}): Promise<VocabularyReport> {
  const options = { ...defaultVocabularyOptions, ...overrides };
  const weights = [...new Set([...options.weights, boostWeight])].sort((a, b) => a - b);
  console.log('stt: vocabulary, speaking the rare terms with flite and espeak-ng…');
  const rare = spoken(rareLines);
  const general = sttBenchLines.map((said, i) => ({ said, audio: fliteSay(said, voices[i % voices.length]) }));
  const terms: TermRow[] = [await termRow('rare terms (flite, espeak-ng)', 'no phrases', rare, rareTerms, [])];
  for (const weight of weights)
    terms.push(
      await termRow('rare terms (flite, espeak-ng)', `boost ${weight}`, rare, rareTerms, rareTerms, {
        boostWeight: weight,
      }),
    );
  terms.push(await termRow('general sentences (flite)', 'no phrases', general, rareTerms, []));
  terms.push(await termRow('general sentences (flite)', `boost ${boostWeight}`, general, rareTerms, rareTerms));

  const prompts = asteriskPrompts().filter((_, i) => i % options.promptStep === 0);
  const withTerms = prompts.filter((p) => ivrTerms.some((t) => occurrences(p.text, t) > 0));
  const without = prompts.filter((p) => !withTerms.includes(p)).filter((_, i) => i % 5 === 0);
  const phone = (p: { text: string; audio: Int16Array }) => ({
    said: p.text,
    audio: upTo16k(throughMulaw(p.audio)),
    capturedRate: 8_000,
  });
  console.log(`stt: vocabulary, ${withTerms.length} Asterisk prompts with IVR terms, ${without.length} without…`);
  for (const [corpus, list] of [
    ["Asterisk's prompts with IVR terms (phone)", withTerms],
    ["Asterisk's prompts without them (phone)", without],
  ] as const) {
    terms.push(await termRow(corpus, 'no phrases', list.map(phone), ivrTerms, []));
    terms.push(await termRow(corpus, `boost ${boostWeight}`, list.map(phone), ivrTerms, ivrTerms));
  }
  const menu = [...(await menuRows('phone')), ...(await menuRows('wide'))];
  return { weight: boostWeight, terms, menu, letters: letterRules(), options };
}
