import { mostlyLetters, wordsOutside } from './phrases.js';

/**
 * Barge-in decided while the user is still talking over the agent: on the recogniser's hypothesis
 * so far of that speech (OVERHEARING), not its final transcript, which comes only once the user
 * stops. Pure; the session machine calls it.
 *
 * A hypothesis so far interrupts when it holds `wordsToInterrupt` words that say something, or two
 * once the speech has gone on `twoWordsAfterMs`: words that are not an acknowledgement (the agent's
 * `backchannel_words`), a filler sound, a single letter, or "a", "an", "the", "and", and the
 * hypothesis is not mostly single letters (a murmur). Fewer such words wait for more: "okay" and
 * "okay so" wait; "okay so what" interrupts from 600 ms, "okay so what about" at once. Two count
 * only while no hypothesis of the speech has held a lone letter ("an m a": a hum on its way).
 * Acknowledgements neither count nor block.
 *
 * Why two only late: a streaming recogniser's hypothesis of an acknowledgement wanders on its way
 * to the final words (on a phone line pocketsphinx hears "got it" as "go to…"), but an
 * acknowledgement is over within ~600 ms. In the barge-in bench (bench/README.md), on recorded
 * callers: three words only 920 ms p50, this rule 700, two words at any time 600 but 3 of 43
 * synthetic acknowledgements interrupted that the final transcript let resume (this rule: 1, a
 * slow 925 ms "mm-hmm").
 */

export const wordsToInterrupt = 3;
/**
 * Two such words interrupt once the speech has gone on this long (ms from its onset): longer than
 * most acknowledgements last ("got it", "okay": 200–600 ms), so a wandering hypothesis of one
 * ("go to…" for "got it") is over before it counts, while a caller with something to say is
 * still talking.
 */
export const twoWordsAfterMs = 600;

/** Sounds that are no words of an interruption, whatever the agent's acknowledgements. */
const fillers = new Set(['um', 'uh', 'er', 'erm', 'ah', 'hmm', 'mm', 'mhm', 'huh', 'oh']);
/** Short words a recogniser writes for noise as often as for speech. */
const slight = new Set(['a', 'an', 'the', 'and']);

/** The words of `partial` that say something (see above), in order. */
export function sayingWords(partial: string, backchannelWords: readonly string[]): string[] {
  return wordsOutside(partial, backchannelWords).filter(
    (w) => !fillers.has(w) && !slight.has(w) && !/^\p{L}$/u.test(w),
  );
}

/** A rule for the hypothesis so far (the bench measures others). */
export interface SoFarRule {
  /** Words that say something which interrupt at once. */
  words: number;
  /** From when (ms of speech) two such words interrupt. */
  twoWordsAfterMs: number;
  /** Whether two words count after a hypothesis of the same speech held a lone letter (a hum). */
  twoAfterMurmur: boolean;
}

export const soFarRule: Readonly<SoFarRule> = { words: wordsToInterrupt, twoWordsAfterMs, twoAfterMurmur: false };

/**
 * Whether the hypothesis so far of speech over the agent (OVERHEARING: `partial`, read `speechMs`
 * after its onset; `murmured`: an earlier hypothesis of it held a lone letter) says enough to
 * interrupt it: `wordsToInterrupt` words that say something, or two once the speech has gone on
 * `twoWordsAfterMs`, unless the recogniser wrote a lone letter on the way (a slow "mm-hmm" goes
 * "an m a" → "and then made…": a hum it has no word for), which leaves it to three.
 */
export function interruptsSoFar(
  heard: { partial: string; speechMs: number; murmured: boolean },
  backchannelWords: readonly string[],
  rule: Readonly<SoFarRule> = soFarRule,
): boolean {
  if (mostlyLetters(heard.partial)) return false;
  const saying = sayingWords(heard.partial, backchannelWords).length;
  const twoCount = heard.speechMs >= rule.twoWordsAfterMs && (rule.twoAfterMurmur || !heard.murmured);
  return saying >= rule.words || (saying >= 2 && twoCount);
}

/**
 * Words that say something (as `sayingWords`) a finished transcript of speech over the agent needs
 * to interrupt it; stop words interrupt alone (`stop_words`). One word resumes playback: a
 * recogniser hears a short acknowledgement as another single word often enough ("okay" as
 * "again" through pocketsphinx, on flite's voice), and one word over an answer is rarely a request
 * of its own. The idea of LiveKit Agents' `min_interruption_words`.
 */
export const wordsToInterruptAtEnd = 2;

/** Whether the finished transcript of speech over the agent says enough to interrupt it. */
export function interruptsAtEnd(text: string, backchannelWords: readonly string[]): boolean {
  return !mostlyLetters(text) && sayingWords(text, backchannelWords).length >= wordsToInterruptAtEnd;
}
