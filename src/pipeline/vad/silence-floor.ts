/**
 * The VAD's energy pre-gate, process-wide. Outside an utterance, a window quieter than the floor
 * is scored 0 on the main thread instead of going to the model: Silero scores near-digital silence
 * ~0 anyway, and on a clean line most of the audio between utterances is that (vad-stream.ts
 * applies it; a noisy line skips fewer windows).
 */
import { isSilenceFloor, minSilenceFloorDbfs, type SilenceFloorDbfs } from '../../config/env-schema.js';
import { vadWindowSamples } from './silero-format.js';

// The levels the floor takes are the setting's (PARLEY_VAD_SILENCE_FLOOR_DBFS), defined with it.
export { defaultSilenceFloorDbfs, isSilenceFloor, type SilenceFloorDbfs } from '../../config/env-schema.js';

/**
 * A window's energy (the sum of the squares of its samples as floats in [-1, 1)) below which it is
 * under `floor`: RMS² < 10^(dBFS / 10), times the window's samples. 0 for `off` (no window is below).
 */
export function silenceFloorEnergy(floor: SilenceFloorDbfs): number {
  if (!isSilenceFloor(floor))
    throw new RangeError(`VAD silence floor must be ${minSilenceFloorDbfs}..0 dBFS or 'off', got ${floor}`);
  if (floor === 'off') return 0;
  return vadWindowSamples * 10 ** (floor / 10);
}
