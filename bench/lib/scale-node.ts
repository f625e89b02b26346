/**
 * One Parley node for bench/scale.ts: the real entry point, src/main.ts (config from the
 * environment, PARLEY_WORKERS, its shutdown and crash handling), with one change made before it
 * loads: the ProviderSet's STT and TTS answer with the bench's instant stand-ins
 * (bench/lib/instant-speech.ts), so that the stand-in preset (bench/lib/stand-in-preset.ts) costs
 * nothing and what is measured is Parley's own work. src/main.ts takes no speech override, and the
 * preset's real engines (local Whisper, espeak-ng) would dominate the CPU or are not installed.
 *
 *   PORT=… REDIS_URL=… PARLEY_WORKERS=1 node --import tsx bench/lib/scale-node.ts
 */
import { ProviderSet } from '../../src/providers/speech-providers.js';
import { instantSpeech } from './instant-speech.js';

const instant = instantSpeech();
// Same module instance as the one src/parley.ts imports (one URL), so every session sees these.
ProviderSet.prototype.stt = (settings) => instant.stt(settings);
ProviderSet.prototype.tts = (settings) => instant.tts(settings);

await import('../../src/main.js');
