/**
 * A provider call that failed for a reason worth telling an operator: the upstream answered an
 * error status, timed out or could not be reached, a local program is missing or exited non-zero,
 * a model folder is missing. The message names the provider and says what to fix; it goes to
 * error records and logs, never to an end user. Aborts are not ProviderErrors.
 */
export class ProviderError extends Error {
  override readonly name = 'ProviderError';

  constructor(
    /** The provider name from the catalog (`openai`, `espeak`, `local-whisper`, …). */
    readonly provider: string,
    message: string,
    options?: ErrorOptions,
  ) {
    super(`${provider}: ${message}`, options);
  }
}
