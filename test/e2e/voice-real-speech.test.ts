import { describe, expect, it } from 'vitest';
import type { FliteVoice } from '../support/flite-speech.js';
import {
  clip,
  espeakTts,
  fliteTts,
  hearAgent,
  listenUntil,
  realSpeechBed,
  recordAgentSpeech,
  report,
  type TtsSettings,
} from '../support/real-speech.js';
import { wordErrorRate } from '../support/wer.js';

/**
 * Real round trips, no scripted STT: flite asks questions into WebSocket sessions at real time,
 * the real Silero VAD and pocketsphinx hear them, the operator's webhook (a real HTTP server)
 * answers with known sentences, espeak-ng or flite speaks them, and pocketsphinx transcribes the
 * audio the client received. Word error rates are measured, printed and bounded.
 */

const bed = realSpeechBed();

interface Conversation {
  voice: FliteVoice;
  tts: TtsSettings;
  turns: { ask: string; answer: string }[];
}

const fliteRms = { ...fliteTts, voice: 'rms' };
const turn = (ask: string, answer: string) => ({ ask, answer });

/** Six sessions of two questions, asked by three flite voices; answers by espeak-ng and flite. */
const conversations: Conversation[] = [
  {
    voice: 'slt',
    tts: espeakTts,
    turns: [
      turn('what time do you open on sunday', 'We open at nine on Sunday morning.'),
      turn('can i book a table for four people on friday evening', 'Yes, a table for four on Friday evening.'),
    ],
  },
  {
    voice: 'rms',
    tts: fliteTts,
    turns: [
      turn('do you have a parking lot', 'There is a parking lot behind the restaurant.'),
      turn('how much does the tasting menu cost', 'The tasting menu costs sixty dollars.'),
    ],
  },
  {
    voice: 'kal16',
    tts: espeakTts,
    turns: [
      turn('where is the restaurant', 'We are next to the station.'),
      turn('is the kitchen open after ten', 'No, the kitchen closes at ten.'),
    ],
  },
  {
    voice: 'slt',
    tts: fliteRms,
    turns: [
      turn('i would like to cancel my reservation for tomorrow night', 'Your reservation is cancelled.'),
      turn('yes please', 'Good. Your table is booked.'),
    ],
  },
  {
    voice: 'rms',
    tts: espeakTts,
    turns: [
      turn('my name is john smith', 'Thank you, John.'),
      turn('can i pay by credit card', 'You can pay by credit card or cash.'),
    ],
  },
  {
    voice: 'kal16',
    tts: fliteTts,
    turns: [
      turn('what is your phone number', 'Our phone number is on the website.'),
      turn('do you serve vegetarian food', 'Yes, we have many vegetarian dishes.'),
    ],
  },
];

/**
 * One session: each question, then silence until the answer has played out (audio_end); the
 * answer's audio is transcribed while the next question is asked.
 */
async function converse(c: Conversation) {
  const agent = await bed.agent(c.tts);
  const { client, sessionId } = await bed.connect(agent, (_, n) => c.turns[n]?.answer ?? 'Okay.');
  const speech = recordAgentSpeech(client);
  const answered: Promise<{ said: string; heard: string }>[] = [];
  for (const [i, turn] of c.turns.entries()) {
    await client.stream(clip(c.voice, 300, turn.ask));
    await listenUntil(client, () => client.eventsOf('audio_end').length > i || client.eventsOf('error').length > 0);
    const heard = hearAgent(bed.stt, speech.of(i + 1), speech.rate(i + 1));
    answered.push(heard.then((text) => ({ said: turn.answer, heard: text })));
  }
  const sent = bed.transcripts(sessionId);
  const asked = c.turns.map((t, i) => ({ said: t.ask, heard: sent[i] ?? '' }));
  return { client, sent, asked, answered: await Promise.all(answered) };
}

describe('real speech round trips (flite → pocketsphinx → webhook → TTS → pocketsphinx)', () => {
  it('twelve questions in six sessions: one webhook call each, bounded WER both ways', async () => {
    const runs = await Promise.all(conversations.map(converse));
    for (const [i, run] of runs.entries()) {
      expect(run.client.eventsOf('error')).toEqual([]);
      // exactly one webhook call per question: no question split in two, none lost
      expect(run.sent).toHaveLength(conversations[i]!.turns.length);
      expect(run.client.eventsOf('transcript').map((e) => e.text)).toEqual(run.sent);
      expect(run.client.eventsOf('interrupted')).toEqual([]);
    }
    const asked = runs.flatMap((r) => r.asked);
    const questionsWer = wordErrorRate(asked);
    report('flite questions → pocketsphinx (in the session)', questionsWer, asked);

    const byTts = (provider: string) =>
      runs.filter((_, i) => conversations[i]!.tts.provider === provider).flatMap((r) => r.answered);
    const espeakWer = wordErrorRate(byTts('espeak'));
    const fliteWer = wordErrorRate(byTts('flite'));
    report('espeak-ng answers → pocketsphinx', espeakWer, byTts('espeak'));
    report('flite answers → pocketsphinx', fliteWer, byTts('flite'));

    // Measured here: questions 12-16 %, espeak-ng answers 53-71 % (pocketsphinx's model hears
    // espeak-ng's formant voice poorly), flite answers 5-7 %. Runs differ a little: a decoder's
    // cepstral mean carries over from the utterances it decoded before.
    expect(questionsWer).toBeLessThanOrEqual(0.3);
    expect(espeakWer).toBeLessThanOrEqual(0.85);
    expect(fliteWer).toBeLessThanOrEqual(0.25);
  }, 180_000);
});
