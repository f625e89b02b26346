import { WebSocket } from 'ws';
import type { VoiceSessionGrant } from '../client/session-api.js';
import { VoiceConnection } from '../client/voice-connection.js';
import type { WebSocketConstructor } from '../client/websocket-like.js';
import type { TestTurn } from '../schemas/agent-test.js';
import { callerSampleRate } from './caller-speech.js';
import { PacedMicrophone } from './paced-microphone.js';

/** What the caller heard and saw of one call, on the media connection. */
export interface HeardCall {
  /** The agent's whole answers; `turn` is the caller's turn (1-based) they answered, 0 before the first. */
  answers: { turn: number; text: string }[];
  /** Per caller turn: end of its speech → the agent's first audio after it (ms); null when none came. */
  waitsMs: (number | null)[];
  /** `transfer` message: where the caller was handed. */
  transfer: { to: string | null } | null;
  /** How the session ended, as the connection was told (`agent_hangup`, `transferred`, `client_hangup`, …). */
  endReason: string | null;
}

export interface TestCallTimings {
  /** Default silence before a line, after the agent's previous answer ended. */
  pauseMs: number;
  /** Longest wait for an answer to finish (or start, before an interruption); then the caller goes on. */
  answerTimeoutMs: number;
  /** After the last answer, how long the call may take to end on its own (call control) before the caller hangs up. */
  endGraceMs: number;
}

export const defaultTestCallTimings: TestCallTimings = { pauseMs: 500, answerTimeoutMs: 20_000, endGraceMs: 1_500 };

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Plays a test case's caller lines over Parley's own WebSocket media endpoint with the client SDK's
 * `VoiceConnection`, exactly as a real client: the session grant is made in-process (so the session
 * can be marked and counted by the runner), the media goes over a real socket to this server.
 */
export async function playCall(
  grant: VoiceSessionGrant,
  turns: readonly TestTurn[],
  lines: readonly Int16Array[],
  timings: TestCallTimings,
  /** The agent speaks first: the caller waits for its greeting to end before the first line. */
  greets: boolean,
): Promise<HeardCall> {
  const connection = new VoiceConnection({
    baseUrl: 'http://in-process',
    agentToken: '',
    sampleRate: callerSampleRate,
    WebSocket: WebSocket as unknown as WebSocketConstructor,
    fetch: () => Promise.resolve(new Response(JSON.stringify(grant), { status: 201 })),
  });
  const heard: HeardCall = { answers: [], waitsMs: turns.map(() => null), transfer: null, endReason: null };
  let callerTurn = 0;
  /** Time of the agent's latest first frame of a turn, and of the latest audio_end. */
  let lastAudioStart = 0;
  let lastAudioEnd = 0;
  let speechEnd = Number.POSITIVE_INFINITY;
  let waitingTurn = -1;
  connection.on('message', (message) => {
    if (message.type === 'transfer') heard.transfer = { to: typeof message['to'] === 'string' ? message['to'] : null };
  });
  connection.on('response', (m) => {
    if (m.final !== false) heard.answers.push({ turn: callerTurn, text: m.text });
  });
  connection.on('audio_start', () => (lastAudioStart = performance.now()));
  connection.on('audio_end', () => (lastAudioEnd = performance.now()));
  connection.on('audio', () => {
    const now = performance.now();
    if (waitingTurn >= 0 && now >= speechEnd) {
      heard.waitsMs[waitingTurn] = Math.round(now - speechEnd);
      waitingTurn = -1;
    }
  });
  connection.on('ended', (ended) => (heard.endReason = ended.reason));

  /** Resolves once `test` holds or the call ended, or after `timeoutMs`. */
  const until = async (test: () => boolean, timeoutMs: number): Promise<void> => {
    const deadline = performance.now() + timeoutMs;
    while (!test() && connection.ended === null && performance.now() < deadline) await sleep(frameCheckMs);
  };

  await connection.open();
  const microphone = new PacedMicrophone((frame) => connection.sendAudio(frame));
  microphone.open();
  try {
    for (const [i, turn] of turns.entries()) {
      const spokenAt = speechEnd;
      if (i === 0 && greets) await until(() => lastAudioEnd > 0, timings.answerTimeoutMs);
      if (i > 0 && turn.interrupt_after_ms !== undefined) {
        await until(() => lastAudioStart > spokenAt, timings.answerTimeoutMs);
        const overAt = lastAudioStart + turn.interrupt_after_ms;
        await until(() => performance.now() >= overAt, turn.interrupt_after_ms + 1_000);
      } else {
        if (i > 0) await until(() => lastAudioEnd > spokenAt, timings.answerTimeoutMs);
        const pauseUntil = performance.now() + (turn.pause_ms ?? timings.pauseMs);
        await until(() => performance.now() >= pauseUntil, timings.answerTimeoutMs);
      }
      if (connection.ended !== null) break;
      callerTurn = i + 1;
      waitingTurn = -1;
      speechEnd = await microphone.say(lines[i]!);
      waitingTurn = i;
    }
    const lastSpoken = speechEnd;
    await until(() => lastAudioEnd > lastSpoken, timings.answerTimeoutMs);
    // Call control acts after the closing words' audio_end: give it a moment to end the call.
    await until(() => false, timings.endGraceMs);
  } finally {
    microphone.close();
    if (connection.ended === null) await connection.end();
  }
  return heard;
}

/** How often the caller looks at what it heard while it waits. */
const frameCheckMs = 10;
