import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PocketsphinxStt } from '../../src/providers/pocketsphinx/pocketsphinx-stt.js';
import { asteriskPrompts, throughMulaw, upTo16k, type AsteriskPrompt } from '../support/asterisk-prompts.js';
import { fliteSay } from '../support/flite-speech.js';
import { wordErrorRate } from '../support/wer.js';

/**
 * An agent's expected phrases as a boost of pocketsphinx's language model (issue 31, item 5), on
 * real speech: people's recorded voices (Asterisk's prompts, over the phone path) and flite.
 * Each setup runs on a fresh one-decoder provider, so its results do not depend on the others'.
 */
const wide = { sampleRate: 16_000, model: 'en-us', language: null };
const phone = { ...wide, capturedRate: 8_000 };
const ivrTerms = ['conference', 'extension', 'voicemail', 'mailbox', 'operator', 'pound key', 'password'];

/** Prompts that say "conference" once each; the language model alone hears "company", "complaint"… */
const conferencePrompts = [
  'conf-enteringno',
  'conf-extended',
  'conf-getconfno',
  'conf-hasleft',
  'conf-invalid',
  'conf-leaderhasleft',
  'conf-now-recording',
  'conf-placeintoconf',
  'confbridge-conf-end',
];

async function overThePhone(prompts: AsteriskPrompt[], phrases: string[]): Promise<string[]> {
  const stt = new PocketsphinxStt({ decoders: 1, threads: 1 });
  try {
    const heard: string[] = [];
    for (const p of prompts)
      heard.push(await stt.transcribe({ ...phone, audio: upTo16k(throughMulaw(p.audio)), phrases }));
    return heard;
  } finally {
    await stt.close();
  }
}

describe("expected phrases boost the recogniser: people's voices over a phone line", () => {
  let prompts: AsteriskPrompt[];
  beforeAll(() => {
    prompts = asteriskPrompts((name) => conferencePrompts.includes(name));
    expect(prompts.map((p) => p.name)).toEqual(conferencePrompts);
  });

  it('hears the IVR term in (nearly) every prompt with the phrases, rarely without, and fewer words wrong', async () => {
    const plain = await overThePhone(prompts, []);
    const boosted = await overThePhone(prompts, ivrTerms);
    const hits = (heard: string[]) => heard.filter((h) => h.split(' ').includes('conference')).length;
    console.log(`conference heard: ${hits(plain)} of 9 without, ${hits(boosted)} of 9 with the phrases`);
    expect(hits(plain)).toBeLessThanOrEqual(3); // 1 when measured
    expect(hits(boosted)).toBeGreaterThanOrEqual(8); // 9 when measured
    const wer = (heard: string[]) => wordErrorRate(prompts.map((p, i) => ({ said: p.text, heard: heard[i]! })));
    console.log(`WER ${wer(plain).toFixed(3)} without, ${wer(boosted).toFixed(3)} with the phrases`);
    expect(wer(boosted)).toBeLessThan(wer(plain) - 0.1); // 0.35 → 0.15 when measured
    expect(wer(plain)).toBeLessThanOrEqual(0.5); // the phone path itself (item 4): 0.35 when measured
  }, 120_000); // two passes over nine prompts: 24 s alone, past 30 s beside Chromium
});

describe('expected phrases boost the recogniser: rare and new words, any words still heard', () => {
  let stt: PocketsphinxStt;
  beforeAll(() => {
    // writes here run faster than real time: lift the lag bound
    stt = new PocketsphinxStt({ decoders: 1, threads: 1, maxLagMs: 60_000 });
  });
  afterAll(() => stt.close());

  // lipitor and zendesk are not in the dictionary: their pronunciation is guessed
  const lines = [
    { said: 'i would like to refill my prescription for lipitor', term: 'lipitor', plain: 'literature' },
    { said: 'i want to cancel my zendesk subscription', term: 'zendesk', plain: 'zen' },
  ];
  const agentA = ['lipitor', 'zendesk', 'salesforce', 'doctor nakamura'];
  const agentB = ['conference', 'voicemail', 'pound key'];

  it('a term the language model misses is heard with the phrases, streamed and whole', async () => {
    for (const { said, term, plain } of lines) {
      const audio = fliteSay(said, 'slt');
      expect(await stt.transcribe({ ...wide, audio })).toContain(plain);
      expect(await stt.transcribe({ ...wide, audio, phrases: agentA })).toContain(term);
      const stream = stt.openStream({ ...wide, phrases: agentA })!;
      for (let i = 0; i < audio.length; i += 512) stream.write(audio.subarray(i, i + 512));
      expect(await stream.finish()).toContain(term);
    }
  });

  it('words off the list are still heard (a grammar hears one of the phrases, or nothing)', async () => {
    const said = 'i would like to book a table for four people on friday evening';
    const audio = fliteSay(said, 'rms');
    const heard = await stt.transcribe({ ...wide, audio, phrases: agentA });
    expect(wordErrorRate([{ said, heard }])).toBeLessThanOrEqual(0.2);
    const grammar = await stt.transcribe({ ...wide, audio, phrases: agentA, phrasesOnly: true });
    expect(agentA).toContain(grammar); // the grammar's nearest phrase, or ''
  });

  it('agents take turns on one decoder: each hears its own phrases; without phrases, new words are not heard', async () => {
    const zendesk = fliteSay(lines[1]!.said, 'slt');
    const conference = fliteSay('please enter your conference number', 'slt');
    for (let round = 0; round < 2; round++) {
      expect(await stt.transcribe({ ...wide, audio: zendesk, phrases: agentA })).toContain('zendesk');
      expect(await stt.transcribe({ ...wide, audio: conference, phrases: agentB })).toContain('conference');
      expect(await stt.transcribe({ ...wide, audio: zendesk, phrases: agentB })).not.toContain('zendesk');
      expect(await stt.transcribe({ ...wide, audio: zendesk })).not.toContain('zendesk');
    }
  });

  it("warming a session's recogniser builds its search too (a grammar that cannot compile says so then)", async () => {
    const fresh = new PocketsphinxStt({ decoders: 1, threads: 1 });
    try {
      await expect(fresh.warm({ phrases: ['zzyzxq blorf'], phrasesOnly: true })).rejects.toThrow(/do not compile/);
      await fresh.warm({ phrases: agentA });
      expect(await fresh.transcribe({ ...wide, audio: fliteSay(lines[1]!.said, 'slt'), phrases: agentA })).toContain(
        'zendesk',
      );
    } finally {
      await fresh.close();
    }
  });

  it('a word with letters it cannot pronounce is left out of the boost; the rest still works', async () => {
    const audio = fliteSay(lines[1]!.said, 'slt');
    expect(await stt.transcribe({ ...wide, audio, phrases: ['zendesk', 'привет'] })).toContain('zendesk');
  });
});
