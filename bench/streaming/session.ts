/**
 * One caller of the streaming bench: a WebSocket voice session that asks its questions at
 * real-time pace (bench/lib/paced-mic.ts: a 20 ms frame every 20 ms, silence between), each after
 * the answer to the last has played (`audio_end`) and a short gap, timed from the client's side.
 */
import { VoiceClient } from '../../test/support/voice-client.js';
import { PacedMic } from '../lib/paced-mic.js';
import { openSession } from '../lib/bench-api.js';
import type { Question } from './fakes.js';

export interface TurnWait {
  said: string;
  /** The frame holding the question's last speech sent → the answer's first audio frame received; null: none came. */
  wait_ms: number | null;
  /** The same, to its `audio_start` event. */
  audio_start_ms: number | null;
}

export interface SessionResult {
  session_id: string;
  turns: TurnWait[];
  /** From the connection to the hang-up. */
  seconds: number;
}

/** How long a question may go unanswered before it counts as missed. */
const answerTimeoutMs = 8_000;

export async function runSession(
  url: string,
  agentToken: string,
  questions: Question[],
  gapMs: number,
): Promise<SessionResult> {
  const grant = await openSession(url, agentToken);
  const started = performance.now();
  const client = await VoiceClient.connect(grant.connection_url, grant.connection_token, 16_000);
  const mic = new PacedMic(client);
  const turns: TurnWait[] = [];
  try {
    await client.untilEvent('ready', 1, 10_000);
    await mic.pause(400);
    for (const question of questions) {
      const { endAt } = await mic.say(question.samples);
      const frame = () => client.audio.find((a) => a.at >= endAt);
      const start = () => client.events.find((e) => e.type === 'audio_start' && e.at >= endAt);
      const answered = await client
        .until(() => frame() !== undefined, answerTimeoutMs, 'the answer')
        .then(
          () => true,
          () => false, // missed: counted by its null wait
        );
      const turn = start()?.['turn'];
      turns.push({
        said: question.text,
        wait_ms: answered ? frame()!.at - endAt : null,
        audio_start_ms: start() === undefined ? null : start()!.at - endAt,
      });
      if (turn !== undefined) {
        const played = () => client.events.some((e) => e.type === 'audio_end' && e['turn'] === turn);
        // an answer that never ends is the next question's problem: its wait shows it
        await client.until(played, 15_000, 'audio_end').catch(() => undefined);
      }
      await mic.pause(gapMs);
    }
  } finally {
    await mic.stop();
    client.sendJson({ type: 'end' });
    await client.untilClosed(5_000).catch(() => client.ws.terminate());
  }
  return { session_id: grant.session_id, turns, seconds: (performance.now() - started) / 1000 };
}
