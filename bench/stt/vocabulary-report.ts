import { markdownTable } from '../lib/report.js';
import type { VocabularyReport } from './vocabulary.js';

const pct = (v: number) => `${(v * 100).toFixed(1)} %`;

export function renderVocabularyMarkdown(r: VocabularyReport): string {
  const terms = markdownTable(
    ['corpus', 'setup', 'utterances', 'terms heard', 'terms heard wrongly', 'WER', 'CPU ms per audio s'],
    r.terms.map((t) => [
      t.corpus,
      t.setup,
      t.utterances,
      `${t.terms_heard} / ${t.terms_said}`,
      t.terms_wrongly_heard,
      pct(t.wer),
      t.cpu_ms_per_audio_s.toFixed(1),
    ]),
    ['left', 'left', 'right', 'right', 'right', 'right', 'right'],
  );
  const menu = markdownTable(
    [
      'band',
      'setup',
      'menu answers heard exactly',
      'off-menu: heard nothing',
      'off-menu: heard as a menu answer',
      'off-menu WER',
    ],
    r.menu.map((m) => [
      m.band,
      m.setup,
      `${m.answers_exact} / ${m.answers}`,
      `${m.off_menu_nothing} / ${m.off_menu}`,
      `${m.off_menu_as_phrase} / ${m.off_menu}`,
      pct(m.off_menu_wer),
    ]),
    ['left', 'left', 'right', 'right', 'right', 'right'],
  );
  const l = r.letters;
  return [
    '## Expected phrases: boost, grammar, none',
    '',
    terms,
    '',
    `**Rare terms**: 16 sentences, each with a rare name or term (10 of the 24 phrases are not in the dictionary: their pronunciation is guessed), each said by one of flite's four voices and by espeak-ng, wide band; the phrases are the 24 terms, 8 of them never said. ` +
      '**General sentences**: the `stt` corpus, none of the terms in it, with the same phrases: what boosting costs other speech. ' +
      "**Asterisk's prompts**: the recorded prompts with IVR terms over the phone path (μ-law, 8 → 16 kHz, phone decoder), phrases = 15 IVR terms; and every 5th prompt with none of them. " +
      `A term is heard when its words are in the transcript (a plural counts); "heard wrongly" counts terms in the transcript beyond those said. The boost weight in production is ${r.weight}. Each setup transcribes its utterances whole on one decoder, in order.`,
    '',
    '### A phone menu',
    '',
    menu,
    '',
    "The menu's 10 answers and 4 sentences off the menu, each said by a flite voice and by espeak-ng, over the phone path and wide band, with the answers as phrases (a grammar, or a boost) and without. " +
      'A grammar hears only its phrases: off the menu it hears nothing (the session then transcribes again without phrases and records an `stt_error`) or the nearest answer.',
    '',
    `Pronunciation guesses for new words: on every ${l.every}th plain dictionary word (${l.words}), the spelling rules give the dictionary's pronunciation exactly for ${l.exact} (${pct(l.exact / l.words)}), with a phone error rate of ${pct(l.phone_error_rate)}.`,
  ].join('\n');
}
