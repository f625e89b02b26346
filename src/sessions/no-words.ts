import type { Logger } from 'pino';
import { ProviderError } from '../providers/provider-error.js';
import { hearsPhrasesOnly, type SttProvider, type SttRequest } from '../providers/stt.js';

/** What the check needs to know of the session's recogniser and agent. */
export interface NoWordsCheck {
  stt: SttProvider;
  /** The request the utterance was transcribed with (its phrases: the agent's `expected_phrases`). */
  request: Omit<SttRequest, 'audio' | 'signal'>;
  logger: Logger;
  sessionId: string;
}

/**
 * The rule for speech the VAD confirmed that the recogniser found no words in. A recogniser free
 * to hear any words that hears none is the evidence that nothing was said (a cough, a breath, line
 * noise): no turn, a debug log line. A recogniser held to the agent's expected phrases (a grammar,
 * `hearsPhrasesOnly`) hears nothing in words that are not one of them, so the same audio is transcribed
 * again without the phrases: words there were said and not heard, a ProviderError (the caller
 * records it as `stt_error`, the turn fails); none, nothing was said.
 */
export async function checkNoWords(check: NoWordsCheck, audio: Int16Array, signal: AbortSignal): Promise<void> {
  const { stt, request, logger, sessionId } = check;
  const durationMs = Math.round(audio.length / (request.sampleRate / 1000));
  if (hearsPhrasesOnly(stt, request)) {
    const heard = (await stt.transcribe({ ...request, phrases: [], phrasesOnly: false, audio, signal })).trim();
    if (heard !== '')
      throw new ProviderError(
        stt.label,
        `the speech matches none of the expected phrases (${durationMs} ms of speech; heard without them: "${heard}")`,
      );
  }
  logger.debug({ session_id: sessionId, duration_ms: durationMs }, 'speech with no words: not a turn');
}
