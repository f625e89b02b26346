import { WebSocket } from 'ws';
import { PacedMicrophone } from '../../src/agent-tests/paced-microphone.js';
import { say } from './espeak-speech.js';
import type { Caller } from './fault-matrix.js';
import type { VoiceClient } from './voice-client.js';

/**
 * A caller who speaks: one microphone per call, streaming 20 ms frames at real time from the
 * first turn on (silence between lines, as a live microphone does), stopped when the call closes.
 * Every turn says the same espeak-ng line (the STT stand-in decides the words); a turn ends when
 * its last frame is sent.
 */
export function speechCaller(line = 'What time is it'): Caller {
  const clip = say(line);
  const microphones = new Map<VoiceClient, PacedMicrophone>();
  const microphoneOf = (client: VoiceClient): PacedMicrophone => {
    let mic = microphones.get(client);
    if (mic === undefined) {
      const opened = new PacedMicrophone((frame) => {
        if (client.ws.readyState === WebSocket.OPEN)
          client.ws.send(Buffer.from(frame.buffer, frame.byteOffset, frame.byteLength));
      });
      client.ws.once('close', () => {
        opened.close();
        microphones.delete(client);
      });
      opened.open();
      microphones.set(client, opened);
      mic = opened;
    }
    return mic;
  };
  return {
    async speak(call) {
      const from = call.client.events.length;
      await microphoneOf(call.client).say(clip);
      return { from };
    },
  };
}
