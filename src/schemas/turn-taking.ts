import { z } from 'zod';

/** How a voice agent decides that the user's turn is over (README "Turn-taking"). */
export const endpointingModes = ['silence', 'smart'] as const;
export type EndpointingMode = (typeof endpointingModes)[number];

/**
 * Defaults of the turn-taking settings. The waits are silence after the end of speech, so a
 * question that ends with "?" is answered after ~300 ms, while a sentence cut by a thinking pause
 * (up to ~900 ms), a phone number read in groups, or a trailing "and" / "um" keeps the floor.
 */
export const defaultTurnTakingSettings = {
  endpointing_mode: 'smart' as EndpointingMode,
  transcription_silence_ms: 64,
  preemptive_silence_ms: 200,
  endpointing_punctuation_ms: 300,
  endpointing_number_ms: 1_200,
  endpointing_max_ms: 1_500,
  endpointing_default_ms: 1_000,
  smart_turn_threshold: 0.5,
  statement_end_threshold: -1.5 as number | null,
  statement_end_pitch: true,
  backchannel_words: [
    'okay',
    'ok',
    'uh-huh',
    'mm-hmm',
    'mhm',
    'yeah',
    'yep',
    'right',
    'sure',
    'i see',
    'got it',
    // what a recogniser without those tokens writes for them (pocketsphinx hears "uh-huh" as "huh")
    'huh',
    'hmm',
    'mm',
    'uh',
    'um',
  ],
  stop_words: ['stop', 'wait', 'hold on'],
};

const wait = (description: string) => z.number().int().min(0).max(10_000).meta({ description });
const phrases = (description: string) =>
  z.array(z.string().trim().toLowerCase().min(1).max(40)).max(50).meta({ description });

/** The turn-taking settings an operator writes (create and patch). */
export const turnTakingSettingsShape = {
  endpointing_mode: z.enum(endpointingModes).meta({
    description:
      '`smart`: preemptive transcription at a short silence, then a wait that depends on the words. ' +
      '`silence`: `min_silence_ms` of silence ends the turn.',
  }),
  transcription_silence_ms: z
    .number()
    .int()
    .min(32)
    .max(2_000)
    .meta({
      description:
        'Smart mode: silence after which the utterance so far is transcribed, ahead (32: the first silent VAD window). ' +
        'Each pause longer than this costs an STT call, dropped if the user goes on.',
    }),
  preemptive_silence_ms: z.number().int().min(64).max(2_000).meta({
    description:
      'Smart mode, enhanced: silence after which the LLM answer is started, ahead (held back until the turn is confirmed).',
  }),
  endpointing_punctuation_ms: wait('Smart mode: silence that ends a turn whose transcript ends with . ? or !'),
  endpointing_number_ms: wait(
    'Smart mode: silence that ends a turn ending with a digit, a number, an email or a spelling.',
  ),
  endpointing_max_ms: wait(
    'Smart mode: silence that ends a turn ending with a conjunction or filler (and, so, um); the longest wait.',
  ),
  endpointing_default_ms: wait('Smart mode: silence that ends any other turn.'),
  smart_turn_threshold: z.number().min(0).max(1).meta({
    description:
      'Smart mode with an end-of-turn model loaded: at or above this probability the turn ends at the short silence.',
  }),
  statement_end_threshold: z
    .number()
    .min(-10)
    .max(0)
    .nullable()
    .meta({
      description:
        'Smart mode, unpunctuated transcripts: log10 P(end of sentence | last two words) under the ' +
        "recogniser's language model at or above which a statement counts as finished (with " +
        '`statement_end_pitch`, its voice must fall and fade too): it then waits `endpointing_punctuation_ms`. null: off.',
    }),
  statement_end_pitch: z.boolean().meta({
    description:
      "Smart mode: a finished statement (see `statement_end_threshold`) must also end with its pitch falling to the speaker's floor and its voice fading out; a question without punctuation whose voice stops at full strength waits `endpointing_default_ms`.",
  }),
  backchannel_words: phrases('Acknowledgements that never interrupt the agent (matched whole, case-insensitive).'),
  stop_words: phrases('Words that interrupt the agent at once, however short.'),
};

/** The same settings as they appear in the agent record. */
export const turnTakingRecordShape = {
  endpointing_mode: z.enum(endpointingModes),
  transcription_silence_ms: z.number().int(),
  preemptive_silence_ms: z.number().int(),
  endpointing_punctuation_ms: z.number().int(),
  endpointing_number_ms: z.number().int(),
  endpointing_max_ms: z.number().int(),
  endpointing_default_ms: z.number().int(),
  smart_turn_threshold: z.number(),
  statement_end_threshold: z.number().nullable(),
  statement_end_pitch: z.boolean(),
  backchannel_words: z.array(z.string()),
  stop_words: z.array(z.string()),
};
