/** The utterances bench/stt.ts transcribes: flite speech generated at run time, four voices. */
import { fliteSay, type FliteVoice } from '../../test/support/flite-speech.js';
import { padWithNoise } from '../lib/noise-floor.js';

export const sttBenchRate = 16_000;
/** Audio before the speech: the VAD's `prefix_padding_ms`, which a session's stream starts with. */
export const leadMs = 300;
/**
 * Audio after the speech: roughly what a session's stream gets before the VAD ends the segment in
 * smart mode (Silero's decay after the last word, ~90 ms, + `transcription_silence_ms`, 64).
 */
export const tailMs = 160;

/** Short answers to long requests; no digits (flite and the reference would spell them apart). */
export const sttBenchLines: readonly string[] = [
  'yes please',
  'what time do you open tomorrow',
  'i would like to book a table for four people on friday evening',
  'can you tell me where the nearest pharmacy is',
  'no thank you that is all for today',
  'please cancel my order and send me a refund',
  'how much does the large pizza cost with extra cheese',
  'i need to change the delivery address to my office',
  'good morning',
  'could you repeat that more slowly please',
  'my name is john smith and i am calling about the invoice you sent me last week because the amount looks wrong',
  'do you have any rooms available next weekend',
  'transfer me to a human agent',
  'what is the weather going to be like in london on saturday',
  'i forgot my password and cannot log in to my account',
  'thank you very much goodbye',
];

const voices: readonly FliteVoice[] = ['slt', 'rms', 'awb', 'kal16'];

export interface Utterance {
  text: string;
  voice: FliteVoice;
  /** 16 kHz: `leadMs` of noise floor, the speech, `tailMs` of noise floor. */
  audio: Int16Array;
  /** The speech alone. */
  speechMs: number;
}

/** Every line, each in the next voice (flite at 16 kHz, its own silences trimmed). */
export function buildSttCorpus(): Utterance[] {
  return sttBenchLines.map((text, i) => {
    const voice = voices[i % voices.length]!;
    const speech = fliteSay(text, voice);
    return {
      text,
      voice,
      audio: padWithNoise(speech, leadMs, tailMs, i),
      speechMs: (speech.length * 1000) / sttBenchRate,
    };
  });
}

export const audioMs = (u: Utterance) => (u.audio.length * 1000) / sttBenchRate;
