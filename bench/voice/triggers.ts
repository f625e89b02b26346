import type { SilenceFloorDbfs } from '../../src/pipeline/vad/silence-floor.js';
import { SileroVad } from '../../src/pipeline/vad/silero-vad.js';
import {
  framesOf,
  loadVoiceBenchClip,
  loopClip,
  speechEndFrames,
  voiceBenchFixture,
} from '../lib/voice-bench-audio.js';
import { vadSettings, type VoiceBenchOptions } from './options.js';

/** Per audio turn (frame indices within the turn's frames), and for the looped clip of (b). */
export interface Triggers {
  /** (a) the frame that completes each turn's end-of-speech decision. */
  turns: number[];
  /** (a) the frame holding each turn's end of speech: where the user stopped talking. */
  spokenUntil: number[];
  /** (b) decision frames in the looped clip. */
  load: number[];
}

/**
 * An offline VAD pass over the exact frames the clients will send: the model is deterministic, so
 * a session fed the same frames decides at the same frames, and the client can time from them.
 * `silenceFloorDbfs` must be the server's: the windows it skips can move a decision by a window or so.
 */
export async function findTriggers(options: VoiceBenchOptions, silenceFloorDbfs?: SilenceFloorDbfs): Promise<Triggers> {
  const clip = await loadVoiceBenchClip();
  const vad = await SileroVad.load({ silenceFloorDbfs });
  try {
    // (a): one session hears the clip once per audio turn, framed per turn.
    const turnFrames = framesOf(clip, options.frameMs);
    const audioTurns = options.warmupTurns + options.turns;
    const all = Array.from({ length: audioTurns }, () => turnFrames).flat();
    const ends = await speechEndFrames(vad, all, vadSettings);
    const perTurn = ends.frames.map((i) => Math.floor(i / turnFrames.length));
    if (ends.speechStarts !== audioTurns || perTurn.some((t, i) => t !== i)) {
      throw new Error(
        `the VAD should end exactly one utterance per turn in ${voiceBenchFixture}; got ends in turns ${perTurn.join(',')}`,
      );
    }
    // (b): every session streams the same looped clip from its start.
    const loopFrames = framesOf(loopClip(clip, options.streamMs), options.frameMs);
    const load = (await speechEndFrames(vad, loopFrames, vadSettings)).frames;
    return {
      turns: ends.frames.map((i) => i % turnFrames.length),
      spokenUntil: ends.spokenUntil.map((i) => i % turnFrames.length),
      load,
    };
  } finally {
    await vad.close();
  }
}
