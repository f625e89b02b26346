import { describe, expect, it } from 'vitest';
import { boostWeight, phraseArpa, phraseBoost, vocabularyArpa } from '../../src/providers/pocketsphinx/sphinx-boost.js';
import { phraseGrammar } from '../../src/providers/pocketsphinx/sphinx-grammar.js';
import { pronounce, spell } from '../../src/providers/pocketsphinx/sphinx-pronounce.js';

/** The ARPA text's n-grams of one order as [log10 prob, words, backoff?]. */
function section(arpa: string, order: number): string[][] {
  const lines = arpa.split('\n');
  const start = lines.indexOf(`\\${order}-grams:`);
  const end = lines.indexOf('', start);
  return lines.slice(start + 1, end).map((l) => l.split(' '));
}

describe('expected phrases as a language-model boost', () => {
  it('is a bigram model of the phrases: unigrams that sum to one, each history’s bigrams to one half', () => {
    const arpa = phraseArpa([
      ['pound', 'key'],
      ['super', 'awesome', 'company'],
      ['super', 'deal'],
    ]);
    expect(arpa).toMatch(/^\\data\\\nngram 1=8\nngram 2=9\n/);
    expect(arpa.endsWith('\\end\\\n')).toBe(true);
    const unigrams = section(arpa, 1);
    expect(unigrams.map((u) => u[1])).toEqual(['<s>', '</s>', 'awesome', 'company', 'deal', 'key', 'pound', 'super']);
    const sum = unigrams.filter((u) => u[1] !== '<s>').reduce((s, u) => s + 10 ** Number(u[0]), 0);
    expect(sum).toBeCloseTo(1, 3);
    const bigrams = section(arpa, 2);
    const after = (w: string) => bigrams.filter((b) => b[1] === w).reduce((s, b) => s + 10 ** Number(b[0]), 0);
    for (const history of ['<s>', 'super', 'pound', 'awesome']) expect(after(history)).toBeCloseTo(0.5, 3);
    expect(bigrams.find((b) => b[1] === 'super' && b[2] === 'awesome')?.[0]).toBe('-0.6021'); // ½ × ½
  });

  it('names each phrase list and weight apart, and lists its distinct words', () => {
    const boost = phraseBoost([' Super  Awesome company', 'waldo', 'super deal', 'waldo'])!;
    expect(boost.words).toEqual(['super', 'awesome', 'company', 'waldo', 'deal']);
    expect(boost.weight).toBe(boostWeight);
    expect(boost.name).toMatch(/^boost_[0-9a-f]{16}$/);
    expect(phraseBoost(['waldo', 'super awesome company', 'super deal'])!.name).toBe(boost.name); // the same model
    expect(phraseBoost(['waldo', 'super awesome company'])!.name).not.toBe(boost.name);
    expect(phraseBoost([' Super  Awesome company', 'waldo', 'super deal'], 0.2)!.name).not.toBe(boost.name);
    expect(phraseBoost([' Super  Awesome company', 'waldo', 'super deal'])!.name).toBe(boost.name);
    expect(phraseBoost([])).toBeNull();
    expect(phraseBoost(['  '])).toBeNull();
    expect(phraseBoost(undefined)).toBeNull();
  });

  it("keeps a decoder's words in a unigram model, each as likely as the others", () => {
    const arpa = vocabularyArpa(['zendesk', 'lipitor', 'zendesk']);
    expect(arpa).toMatch(/^\\data\\\nngram 1=4\n\n\\1-grams:\n/);
    expect(section(arpa, 1).map((u) => u[1])).toEqual(['<s>', '</s>', 'lipitor', 'zendesk']);
    expect(
      section(arpa, 1)
        .filter((u) => u[1] !== '<s>')
        .every((u) => u[0] === '-0.4771'),
    ).toBe(true);
    expect(vocabularyArpa([])).toContain('ngram 1=2\n');
  });

  it('the grammar is still there for those who want it', () => {
    expect(phraseGrammar(['yes please', 'no'])).toMatchObject({
      kind: 'grammar',
      jsgf: '#JSGF V1.0;\ngrammar parley;\npublic <phrase> = yes please | no;\n',
    });
    expect(phraseGrammar([])).toBeNull();
  });
});

describe('pronunciations for words the dictionary lacks', () => {
  const dictionary = new Map([
    ['super', 'S UW P ER'],
    ['awesome', 'AA S AH M'],
    ['mail', 'M EY L'],
    ['voice', 'V OY S'],
  ]);
  const lookup = (w: string) => dictionary.get(w) ?? null;

  it("takes the dictionary's, then two dictionary words', then the spelling rules'", () => {
    expect(pronounce('super', lookup)).toBe('S UW P ER');
    expect(pronounce('superawesome', lookup)).toBe('S UW P ER AA S AH M');
    expect(pronounce('voicemail', lookup)).toBe('V OY S M EY L');
    expect(pronounce('twilio', lookup)).toBe('T W IH L IY OW');
    expect(pronounce('Zoë', lookup)).toBe(spell('zoe'));
  });

  it('spells English words the way the dictionary says them, or close', () => {
    expect(spell('make')).toBe('M EY K');
    expect(spell('phone')).toBe('F OW N');
    expect(spell('night')).toBe('N AY T');
    expect(spell('knight')).toBe('N AY T');
    expect(spell('cheese')).toBe('CH IY S');
    expect(spell('city')).toBe('S IH T IY');
    expect(spell('happy')).toBe('HH AE P IY');
    expect(spell('conference')).toBe('K AA N F ER AH N S');
    expect(spell('table')).toBe('T EY B AH L');
    expect(spell("party's")).toBe('P AA R T IH Z');
  });

  it('has none for a word with letters it cannot read', () => {
    expect(pronounce('привет', lookup)).toBeNull();
    expect(pronounce("'", lookup)).toBeNull();
  });
});
