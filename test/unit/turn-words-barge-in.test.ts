import { describe, expect, it } from 'vitest';
import { interruptsSoFar, sayingWords, twoWordsAfterMs } from '../../machines/turn-words/barge-in.js';
import { holdsLoneLetter } from '../../machines/turn-words/phrases.js';
import { wordsOutside } from '../../machines/turn-words/phrases.js';
import { defaultTurnTakingSettings } from '../../src/schemas/turn-taking.js';

const acknowledgements = defaultTurnTakingSettings.backchannel_words;

describe('words outside phrases', () => {
  it('drops every whole occurrence of the phrases, case, punctuation and hyphens ignored', () => {
    expect(wordsOutside('Okay, so got it now.', ['okay', 'got it'])).toEqual(['so', 'now']);
    expect(wordsOutside('Uh-huh, got to go', ['uh-huh', 'got it'])).toEqual(['got', 'to', 'go']);
    expect(wordsOutside('', ['okay'])).toEqual([]);
  });
});

describe('barge-in on the hypothesis so far', () => {
  it.each([
    // three words that say something interrupt
    ['what about the price', true],
    ['i want to know', true],
    ['okay so what about', true],
    ["i'm afraid i don't", true],
    ['thank you for your', true],
    ['no no no', true],
    // fewer wait for more (the transcript at the end of the speech still decides)
    ['okay', false],
    ['okay so', false],
    ['okay so what', false],
    ['uh huh okay yeah', false],
    ['the party', false],
    ['and and made', false],
    ['i see yeah right', false],
    // a hum a recogniser writes as letters
    ['an m h and m', false],
    ['m m h m a', false],
    ['', false],
  ])('"%s" → %s', (partial, interrupts) => {
    expect(interruptsSoFar({ partial, speechMs: 300, murmured: false }, acknowledgements)).toBe(interrupts);
  });

  it.each([
    // two words that say something interrupt once the speech has gone on twoWordsAfterMs…
    ['what time', 599, false],
    ['what time', 600, true],
    ['okay so what', 600, true],
    ['no thanks', 600, true],
    ['the party', 5_000, false],
    // …one does not, however long, nor acknowledgements, fillers, "a/an/the/and" or letters
    ['okay so', 5_000, false],
    ['uh huh okay yeah', 5_000, false],
    ['and and made', 5_000, false],
    ['an m h and m', 5_000, false],
  ])('"%s" at %i ms → %s', (partial, speechMs, interrupts) => {
    expect(twoWordsAfterMs).toBe(600);
    expect(interruptsSoFar({ partial, speechMs, murmured: false }, acknowledgements)).toBe(interrupts);
  });

  it('after a hypothesis with a lone letter (a hum on its way), two words wait for a third', () => {
    // flite's slow "mm-hmm" through pocketsphinx: "an m a", then "and then made"
    expect(interruptsSoFar({ partial: 'and then made', speechMs: 650, murmured: true }, acknowledgements)).toBe(false);
    expect(interruptsSoFar({ partial: 'and then made', speechMs: 650, murmured: false }, acknowledgements)).toBe(true);
    expect(interruptsSoFar({ partial: 'and then made it up', speechMs: 900, murmured: true }, acknowledgements)).toBe(
      true,
    );
    expect(holdsLoneLetter('an m a')).toBe(true);
    // "a" and "i" are words
    expect(holdsLoneLetter('i want a table')).toBe(false);
  });

  it('acknowledgements, fillers, single letters and a/an/the/and say nothing', () => {
    expect(sayingWords('Um, okay, the A train and I see, got it', acknowledgements)).toEqual(['train']);
  });
});
