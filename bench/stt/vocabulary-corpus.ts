/**
 * What bench/stt/vocabulary.ts says to the recogniser: sentences with rare names and terms (an
 * agent's `expected_phrases`), a phone menu's answers, and the IVR terms of Asterisk's recorded
 * prompts. Terms marked (new) are not in pocketsphinx's dictionary: their pronunciation is guessed.
 */
import { words } from '../../test/support/wer.js';

/** Sentences that each carry one rare term of `rareTerms`. */
export const rareLines: readonly string[] = [
  'i would like to refill my prescription for lipitor',
  'can you check if my zoloft is ready',
  'please connect me to doctor nakamura',
  'i need to speak with siobhan in billing',
  'my account manager is thaddeus abernathy',
  'we are having trouble with our kubernetes cluster',
  'our twilio number stopped working',
  'i want to cancel my zendesk subscription',
  'is amoxicillin covered by my plan',
  'i have a question about metformin',
  'please transfer me to mister nguyen',
  'does the acme order ship today',
  'my salesforce login is not working',
  'the parcel is going to zanzibar',
  'tell doctor fitzgerald that i called',
  'is ozempic in stock',
];

/**
 * The agent's expected phrases for `rareLines`: each line's term, and eight more that are never
 * said (they can only be heard wrongly). New words: lipitor, kubernetes, twilio, zendesk,
 * metformin, ozempic, humira, grafana, okonkwo, hubspot.
 */
export const rareTerms: readonly string[] = [
  'lipitor',
  'zoloft',
  'nakamura',
  'siobhan',
  'thaddeus abernathy',
  'kubernetes',
  'twilio',
  'zendesk',
  'amoxicillin',
  'metformin',
  'nguyen',
  'acme',
  'salesforce',
  'zanzibar',
  'fitzgerald',
  'ozempic',
  'humira',
  'grafana',
  'okonkwo',
  'dvorak',
  'prozac',
  'valium',
  'hubspot',
  'kilimanjaro',
];

/** A phone menu's answers: the agent's expected phrases, and what callers say. */
export const menuPhrases: readonly string[] = [
  'sales',
  'support',
  'billing',
  'operator',
  'yes',
  'no',
  'repeat that',
  'main menu',
  'speak to a person',
  'track my order',
];

/** What callers say to the menu that is none of its phrases. */
export const offMenuLines: readonly string[] = [
  'i would like to book a table for four',
  'what time do you open tomorrow',
  'my name is john smith',
  'can i pay by card',
];

/** An IVR's terms, as found in Asterisk's prompts (the agent's expected phrases). */
export const ivrTerms: readonly string[] = [
  'conference',
  'extension',
  'voicemail',
  'mailbox',
  'operator',
  'directory',
  'pound key',
  'password',
  'participant',
  'super awesome company',
  'waldo',
  'asterisk',
  'digium',
  'customer advocate',
  'accounting',
];

/** Occurrences of `term` (a word sequence; a plural "s" counts) in `text`. */
export function occurrences(text: string, term: string): number {
  const w = words(text);
  const t = term.split(' ');
  let n = 0;
  for (let i = 0; i + t.length <= w.length; i++) if (t.every((x, j) => w[i + j] === x || w[i + j] === `${x}s`)) n++;
  return n;
}

export interface TermCount {
  /** Occurrences of the terms in what was said. */
  said: number;
  /** Of those, heard. */
  heard: number;
  /** Terms heard beyond those said (wrongly heard). */
  extra: number;
}

/** The terms said, heard and heard wrongly over `pairs`. */
export function countTerms(pairs: readonly { said: string; heard: string }[], terms: readonly string[]): TermCount {
  const count: TermCount = { said: 0, heard: 0, extra: 0 };
  for (const p of pairs) {
    for (const term of terms) {
      const said = occurrences(p.said, term);
      const heard = occurrences(p.heard, term);
      count.said += said;
      count.heard += Math.min(said, heard);
      count.extra += Math.max(0, heard - said);
    }
  }
  return count;
}
