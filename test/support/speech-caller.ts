import { WebSocket } from 'ws';
import { PacedMicrophone } from '../../src/agent-tests/paced-microphone.js';
import { say } from './espeak-speech.js';
import type { Caller } from './fault-matrix.js';
import type { VoiceClient } from './voice-client.js';

interface Line {
  mic: PacedMicrophone;
  /** Resolves when the call closes. */
  closed: Promise<void>;
}

/**
 * A caller who speaks: one microphone per call, streaming 20 ms frames at real time from the
 * first turn on (silence between lines, as a live microphone does), stopped when the call closes.
 * Every turn says the same espeak-ng line (the STT stand-in decides the words); a turn ends when
 * its last frame is sent, or when the call closes mid-line.
 */
export function speechCaller(line = 'What time is it'): Caller {
  const clip = say(line);
  const lines = new Map<VoiceClient, Line>();
  const lineOf = (client: VoiceClient): Line => {
    let open = lines.get(client);
    if (open === undefined) {
      const mic = new PacedMicrophone((frame) => {
        if (client.ws.readyState === WebSocket.OPEN)
          client.ws.send(Buffer.from(frame.buffer, frame.byteOffset, frame.byteLength));
      });
      const closed = new Promise<void>((resolve) =>
        client.ws.once('close', () => {
          mic.close();
          lines.delete(client);
          resolve();
        }),
      );
      mic.open();
      open = { mic, closed };
      lines.set(client, open);
    }
    return open;
  };
  return {
    async speak(call) {
      const from = call.client.events.length;
      if (call.client.closeCode !== null) return { from };
      const { mic, closed } = lineOf(call.client);
      await Promise.race([mic.say(clip), closed]);
      return { from };
    },
  };
}
