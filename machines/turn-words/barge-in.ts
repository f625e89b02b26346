import { mostlyLetters, wordsOutside } from './phrases.js';

/**
 * Barge-in decided while the user is still talking over the agent: on the recogniser's hypothesis
 * so far of that speech (OVERHEARING), not its final transcript, which comes only once the user
 * stops. Pure; the session machine calls it.
 *
 * A hypothesis so far interrupts when it holds `wordsToInterrupt` words that say something: words
 * that are not an acknowledgement (the agent's `backchannel_words`), a filler sound, a single
 * letter, or "a", "an", "the", "and", and the hypothesis is not mostly single letters (a murmur).
 * Fewer such words wait for more: "okay" waits, and so do "okay so" and "okay so what"; "okay so
 * what about" interrupts. Acknowledgements neither count nor block.
 *
 * Why three: a streaming recogniser's hypothesis of an acknowledgement or a hum wanders on its way
 * to the final words (on a phone line pocketsphinx hears "got it" as "got to…", a slow "hmm" as
 * "age limit…"). In the barge-in bench (bench/README.md), two words decided ~300 ms sooner on
 * recorded callers (600 against 880 ms p50) but interrupted 1–2 of 43 synthetic acknowledgements
 * that the final transcript let resume; three, none.
 */

export const wordsToInterrupt = 3;

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

/** Whether the hypothesis so far of speech over the agent says enough to interrupt it. */
export function interruptsSoFar(partial: string, backchannelWords: readonly string[]): boolean {
  return !mostlyLetters(partial) && sayingWords(partial, backchannelWords).length >= wordsToInterrupt;
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
