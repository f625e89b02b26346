/**
 * A provider call that failed for a reason worth telling an operator: the upstream answered an
 * error status, timed out or could not be reached, a local program is missing or exited non-zero,
 * a model folder is missing. The message names the provider and says what to fix; it goes to
 * error records and logs, never to an end user. Aborts are not ProviderErrors.
 */
export class ProviderError extends Error {
  override readonly name: string = 'ProviderError';

  constructor(
    /** The provider name from the catalog (`openai`, `espeak`, `local-whisper`, …). */
    readonly provider: string,
    message: string,
    options?: ErrorOptions,
  ) {
    super(`${provider}: ${message}`, options);
  }
}

/**
 * The provider cannot run here at all (no key or server configured, model not installed): said
 * before any network call or model load, so a caller can answer "not configured" with the fix.
 */
export class ProviderNotConfigured extends ProviderError {
  override readonly name = 'ProviderNotConfigured';
}
