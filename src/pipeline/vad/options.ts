/** Per-agent voice activity detection settings (all durations in ms). */
export interface VadOptions {
  /** Speech probability at or above which a window counts as speech (0..1). */
  threshold: number;
  /**
   * Probability below which a window counts as silence while speaking; between the two the current
   * state holds (hysteresis, as in Silero's own iterator). Defaults to `threshold - 0.15`.
   */
  negThreshold?: number;
  /** Speech must last this long before `speech_start` (filters clicks and short noises). */
  minSpeechMs: number;
  /** Silence must last this long before `speech_end`. */
  minSilenceMs: number;
  /** Audio kept from before the detected onset and put at the head of the utterance. */
  prefixPaddingMs: number;
  /** An utterance is ended (reason `max_length`) when it has lasted this long since its onset. */
  maxUtteranceMs: number;
  /** Also emit one `inference` event per 32 ms window (for debugging and the admin panel). */
  emitInference: boolean;
}

export const defaultVadOptions: Readonly<VadOptions> = Object.freeze({
  threshold: 0.5,
  minSpeechMs: 100,
  minSilenceMs: 550,
  prefixPaddingMs: 300,
  maxUtteranceMs: 30_000,
  emitInference: false,
});

/** Merges `options` over the defaults and checks ranges; throws a RangeError naming the bad field. */
export function resolveVadOptions(options: Partial<VadOptions> = {}): VadOptions {
  const o: VadOptions = { ...defaultVadOptions, ...options };
  const check = (ok: boolean, field: string, rule: string) => {
    if (!ok) throw new RangeError(`VAD option ${field} ${rule}`);
  };
  check(o.threshold > 0 && o.threshold < 1, 'threshold', 'must be between 0 and 1');
  if (o.negThreshold !== undefined)
    check(o.negThreshold > 0 && o.negThreshold <= o.threshold, 'negThreshold', 'must be in (0, threshold]');
  check(Number.isFinite(o.minSpeechMs) && o.minSpeechMs >= 0, 'minSpeechMs', 'must be >= 0');
  check(Number.isFinite(o.minSilenceMs) && o.minSilenceMs >= 0, 'minSilenceMs', 'must be >= 0');
  check(
    Number.isFinite(o.prefixPaddingMs) && o.prefixPaddingMs >= 0 && o.prefixPaddingMs <= 10_000,
    'prefixPaddingMs',
    'must be 0..10000',
  );
  check(
    Number.isFinite(o.maxUtteranceMs) && o.maxUtteranceMs >= 1000 && o.maxUtteranceMs <= 600_000,
    'maxUtteranceMs',
    'must be 1000..600000',
  );
  return o;
}
