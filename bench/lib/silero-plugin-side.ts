/**
 * bench/vad.ts's other side, in its own process: @livekit/agents-plugin-silero bundles
 * onnxruntime-node 1.24 while Parley uses 1.30, and the two native libraries cannot load in one
 * process (`VERS_1.30.0 not found`). Forked with IPC by bench/vad.ts: loads the plugin's VAD, then
 * answers each `{ run: true }` with one measured pass over the same audio (`VadPass`).
 */
import { initializeLogger, VADEventType } from '@livekit/agents';
import { VAD } from '@livekit/agents-plugin-silero';
import { AudioFrame } from '@livekit/rtc-node';
import { sliceFrames } from '../../src/audio/audio-frame.js';
import { loadVadBenchAudio, measurePass } from './vad-audio.js';

const [repeats, frameMs] = process.argv.slice(2).map(Number);
initializeLogger({ pretty: false, level: 'warn' });
const audio = await loadVadBenchAudio(repeats!);
// rtc-node frames must own their buffer from offset 0 (its FFI reads the ArrayBuffer's start)
const frames = sliceFrames(audio, (16000 * frameMs!) / 1000).map(
  (f) => new AudioFrame(f.samples.slice(), 16000, 1, f.samples.length),
);
const vad = await VAD.load();

const windows = Math.floor(audio.samples.length / 512);

/**
 * Pushes every frame, then reads events until the stream has scored every window of the audio (its
 * `endInput` throws "WritableStream is locked" in 1.9.0, so the end is found by counting
 * INFERENCE_DONE events).
 */
async function pass(): Promise<number> {
  const stream = vad.stream();
  for (const f of frames) stream.pushFrame(f);
  // it holds its last window until more audio arrives: a few ms of silence releases it
  for (let i = 0; i < 4; i++) stream.pushFrame(new AudioFrame(new Int16Array(320), 16000, 1, 320));
  let starts = 0;
  let scored = 0;
  while (scored < windows) {
    const { value: event, done } = await stream.next();
    if (done) throw new Error(`plugin stream ended after ${scored} of ${windows} windows`);
    if (event.type === VADEventType.START_OF_SPEECH) starts++;
    if (event.type === VADEventType.INFERENCE_DONE) scored++;
  }
  stream.close();
  return starts;
}

process.on('message', (message: { run?: boolean; exit?: boolean }) => {
  if (message.exit) process.exit(0);
  void measurePass(pass).then((result) => process.send!(result));
});
process.send!({ ready: true });
