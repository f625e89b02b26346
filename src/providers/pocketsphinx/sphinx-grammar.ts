import { createHash } from 'node:crypto';
import { cleanPhrases } from './sphinx-boost.js';
import type { SphinxGrammar } from './sphinx-protocol.js';

/**
 * The expected phrases of an agent (`expected_phrases`) as a JSGF grammar: with one, the recogniser
 * hears only those phrases (menu answers, names, commands). Null for none: the language model.
 * Phrases are lower-cased words (letters and apostrophes, the agent schema checks them).
 */
export function phraseGrammar(phrases: readonly string[] | undefined): SphinxGrammar | null {
  const cleaned = cleanPhrases(phrases);
  if (cleaned.length === 0) return null;
  const jsgf = `#JSGF V1.0;\ngrammar parley;\npublic <phrase> = ${cleaned.join(' | ')};\n`;
  return { kind: 'grammar', name: `phrases_${createHash('sha256').update(jsgf).digest('hex').slice(0, 16)}`, jsgf };
}
