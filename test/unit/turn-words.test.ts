import { describe, expect, it } from 'vitest';
import { endpointingWaitMs, transcriptEnding } from '../../machines/turn-words/endpointing.js';
import { isBackchannel, mostlyLetters, saysAny } from '../../machines/turn-words/phrases.js';
import { joinSegments } from '../../machines/turn-words/utterance.js';
import { defaultTurnTakingSettings } from '../../src/schemas/turn-taking.js';

describe('how a transcript ends', () => {
  it.each([
    ['What time do you open tomorrow?', 'punctuation'],
    ['I would like a table for two.', 'punctuation'],
    ['Great!', 'punctuation'],
    ['My number is 555 0123.', 'number'],
    ['my number is five five five', 'number'],
    ['Five five five.', 'number'],
    ['my number is five', 'number'],
    ['It is john.smith@example', 'number'],
    ['john dot smith at example dot', 'number'],
    ['that is J O H N', 'number'],
    ['I want to book a table and', 'continuation'],
    ['So, um', 'continuation'],
    ['I was thinking,', 'continuation'],
    ['Let me see...', 'continuation'],
    ['I want to book a table', 'other'],
    ['', 'other'],
    // a recogniser without punctuation (pocketsphinx): whole questions are told by their words
    ['what time do you open tomorrow', 'question'],
    ['can i book a table for four people tonight', 'question'],
    ['do you have any vegetarian dishes on the menu', 'question'],
    ['can you tell me', 'other'],
    ['what do you think about', 'other'],
    ['is it open', 'other'],
    ['i would like to book a table', 'other'],
    ['what time do you open tomorrow and', 'continuation'],
    ['can i book a table for four', 'number'],
    ['What time do you open tomorrow, please', 'other'],
  ])('%j → %s', (text, ending) => expect(transcriptEnding(text)).toBe(ending));

  it('maps each ending to its wait', () => {
    const waits = { punctuationMs: 1, numberMs: 2, maxMs: 3, defaultMs: 4 };
    expect(['Yes.', 'call 911', 'and', 'hello'].map((t) => endpointingWaitMs(t, waits))).toEqual([1, 2, 3, 4]);
    expect(endpointingWaitMs('where is the nearest station', waits)).toBe(1);
  });

  it('waits as for a finished sentence when a transcript that ends otherwise was judged a finished statement', () => {
    const waits = { punctuationMs: 1, numberMs: 2, maxMs: 3, defaultMs: 4 };
    expect(transcriptEnding('i would like to book a table', true)).toBe('statement');
    expect(endpointingWaitMs('i would like to book a table', waits, true)).toBe(1);
    expect(endpointingWaitMs('i would like to book a table', waits, false)).toBe(4);
    // the judgement never shortens a trailing conjunction's or a number's wait
    expect(endpointingWaitMs('i would like to book a table and', waits, true)).toBe(3);
    expect(endpointingWaitMs('my number is five five five', waits, true)).toBe(2);
  });

  it('a question without punctuation whose voice stopped at full strength waits as any other transcript', () => {
    const waits = { punctuationMs: 1, numberMs: 2, maxMs: 3, defaultMs: 4 };
    expect(transcriptEnding('which folder should i save', false)).toBe('other');
    expect(endpointingWaitMs('which folder should i save', waits, false)).toBe(4);
    // faded out, or not judged: still a whole question
    expect(endpointingWaitMs('which folder should i save', waits)).toBe(1);
    // "false" never lengthens another ending's wait
    expect(endpointingWaitMs('Yes.', waits, false)).toBe(1);
    expect(endpointingWaitMs('call 911', waits, false)).toBe(2);
  });
});

describe('a murmur a recogniser wrote as letters', () => {
  it.each(['an m h and m', 'can an h m m', 'm h m'])('%j is mostly letters', (t) =>
    expect(mostlyLetters(t)).toBe(true),
  );
  it.each(['', 'i need a table', 'wait a second', 'my name is j smith', 'plan b'])('%j is words', (t) =>
    expect(mostlyLetters(t)).toBe(false),
  );
});

describe('acknowledgements and stop words', () => {
  const backchannels = defaultTurnTakingSettings.backchannel_words;
  it.each(['Uh-huh.', 'uh huh', 'Mm-hmm', 'Okay, yeah.', 'Right right', 'Got it.'])('%j is an acknowledgement', (t) =>
    expect(isBackchannel(t, backchannels)).toBe(true),
  );
  it.each(['', 'Okay, but what about Sunday?', 'yeah no I meant Tuesday', 'Stop.'])('%j is not', (t) =>
    expect(isBackchannel(t, backchannels)).toBe(false),
  );
  it('finds stop words as whole words', () => {
    const stops = defaultTurnTakingSettings.stop_words;
    expect(saysAny('Stop!', stops)).toBe(true);
    expect(saysAny('Wait, wait, one more thing', stops)).toBe(true);
    expect(saysAny('Hold on a second.', stops)).toBe(true);
    expect(saysAny('a nonstop flight', stops)).toBe(false);
    expect(saysAny('I am waiting for it', stops)).toBe(false);
  });
});

describe('joining the segments of one utterance', () => {
  it('appends what is new in the next segment, dropping the padding both share', () => {
    const first = { audio: Int16Array.from({ length: 32 }, (_, i) => i), startMs: 0 }; // [0, 2) ms
    const next = { audio: Int16Array.from({ length: 32 }, (_, i) => 16 + i), startMs: 1 }; // [1, 3) ms
    const joined = joinSegments(first, next);
    expect(joined.startMs).toBe(0);
    expect(Array.from(joined.audio)).toEqual(Array.from({ length: 48 }, (_, i) => i));
  });

  it('keeps a gap as it is (the silence between is not in either segment)', () => {
    const joined = joinSegments({ audio: new Int16Array(16), startMs: 0 }, { audio: new Int16Array(16), startMs: 10 });
    expect(joined.audio.length).toBe(32);
  });
});
