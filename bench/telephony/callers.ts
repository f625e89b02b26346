/**
 * The telephony bench's load: N sessions at once, each saying the same flite question `turns`
 * times at real-time pace in 20 ms frames, with silence after each until the answer's first audio
 * (then a short gap), as a phone or a microphone keeps sending. The same audio reaches Parley
 * either as a phone call (the fake carrier: signed webhook, Media Stream, 8 kHz μ-law, marks
 * acknowledged as the audio plays) or over the WebSocket transport (16 kHz PCM16). The frames are
 * prepared once (the carrier's μ-law included), so the load generator's CPU is mostly sockets.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { mulawEncode } from '../../src/audio/mulaw.js';
import { FakePhone, placeCall, streamOf } from '../../test/support/fake-carrier.js';
import { FrameClock } from '../../test/support/frame-clock.js';
import { resample } from '../../test/support/pcm.js';
import { VoiceClient } from '../../test/support/voice-client.js';
import { openSession } from '../lib/bench-api.js';

export type Transport = 'websocket' | 'carrier';

export interface CallsPlan {
  url: string;
  agentToken: string;
  /** The agent's number and the carrier's auth token (carrier calls). */
  number: string;
  authToken: string;
  sessions: number;
  turns: number;
  /** The utterance, 16 kHz PCM16. */
  speech: Int16Array;
  /** Silence after the answer's first audio before the next turn. */
  gapMs: number;
  /** A turn unanswered this long after the end of speech counts as missed. */
  answerTimeoutMs: number;
}

export interface CallsResult {
  transport: Transport;
  session_ids: string[];
  /** End of speech (last speech frame sent) → first audio frame of the answer received, per turn. */
  waits_ms: number[];
  missed: number;
  /** Seconds of audio streamed, all sessions together. */
  session_seconds: number;
}

const frameMs = 20;

interface Line {
  sessionId: string;
  send(frame: number): void;
  /** Called with each audio message's arrival time. */
  onAudio(listener: (at: number) => void): void;
  hangUp(): Promise<void>;
}

/** 20 ms frames of the utterance for one transport: [speech frames, one silent frame]. */
function framesFor(
  transport: Transport,
  speech: Int16Array,
): { speech: (Buffer | string)[]; silence: Buffer | string } {
  const perFrame = transport === 'carrier' ? 160 : 320;
  const pcm = transport === 'carrier' ? resample(speech, 16_000, 8_000) : speech;
  const encode = (frame: Int16Array) =>
    transport === 'carrier' ? Buffer.from(mulawEncode(frame)).toString('base64') : Buffer.from(frame.buffer);
  const frames: (Buffer | string)[] = [];
  for (let i = 0; i < pcm.length; i += perFrame) {
    const frame = new Int16Array(perFrame);
    frame.set(pcm.subarray(i, Math.min(pcm.length, i + perFrame)));
    frames.push(encode(frame));
  }
  return { speech: frames, silence: encode(new Int16Array(perFrame)) };
}

async function carrierLine(plan: CallsPlan, frames: (Buffer | string)[]): Promise<Line> {
  const answer = await placeCall({
    parleyUrl: plan.url,
    authToken: plan.authToken,
    from: '+14155550100',
    to: plan.number,
  });
  const sessionId = streamOf(answer.body)?.parameters['session_id'];
  if (sessionId === undefined) throw new Error(`the voice webhook did not connect the call: ${answer.body}`);
  const phone = await FakePhone.connect(answer);
  phone.start();
  return {
    sessionId,
    send: (i) => phone.media(frames[i] as string),
    onAudio(listener) {
      phone.ws.on('message', (data) => {
        if (String(data).includes('"event":"media"')) listener(performance.now());
      });
    },
    async hangUp() {
      phone.stop();
      phone.close();
      await phone.closed();
    },
  };
}

async function websocketLine(plan: CallsPlan, frames: (Buffer | string)[]): Promise<Line> {
  const grant = await openSession(plan.url, plan.agentToken);
  const client = await VoiceClient.connect(grant.connection_url, grant.connection_token);
  return {
    sessionId: grant.session_id,
    send: (i) => client.sendRaw(frames[i] as Buffer),
    onAudio(listener) {
      client.ws.on('message', (_data, isBinary) => {
        if (isBinary) listener(performance.now());
      });
    },
    async hangUp() {
      client.close();
      await client.untilClosed().catch(() => {}); // closed by us: a slow close changes nothing measured
    },
  };
}

/** Streams one session's turns at real time; returns its waits, missed turns and seconds streamed. */
async function talk(line: Line, plan: CallsPlan, speechFrames: number, silence: number) {
  let speechEndAt = Number.POSITIVE_INFINITY;
  let answeredAt = Number.NaN;
  line.onAudio((at) => {
    if (at > speechEndAt && Number.isNaN(answeredAt)) answeredAt = at;
  });
  const waits: number[] = [];
  let missed = 0;
  const start = performance.now();
  const clock = new FrameClock(frameMs);
  for (let turn = 0; turn < plan.turns; turn++) {
    for (let i = 0; i < speechFrames; i++) {
      line.send(i);
      await clock.tick();
    }
    answeredAt = Number.NaN;
    speechEndAt = performance.now();
    while (Number.isNaN(answeredAt) && performance.now() - speechEndAt < plan.answerTimeoutMs) {
      line.send(silence);
      await clock.tick();
    }
    if (Number.isNaN(answeredAt)) missed++;
    else waits.push(answeredAt - speechEndAt);
    for (let t = 0; t < plan.gapMs; t += frameMs) {
      line.send(silence);
      await clock.tick();
    }
  }
  return { waits, missed, seconds: (performance.now() - start) / 1000 };
}

export async function runCalls(transport: Transport, plan: CallsPlan): Promise<CallsResult> {
  const { speech, silence } = framesFor(transport, plan.speech);
  const frames = [...speech, silence];
  const open = transport === 'carrier' ? carrierLine : websocketLine;
  const lines: Line[] = [];
  for (let i = 0; i < plan.sessions; i++) lines.push(await open(plan, frames));
  const results = await Promise.all(
    lines.map(async (line, i) => {
      await sleep((i * 1000) / plan.sessions); // spread over a second: no lockstep frames
      return talk(line, plan, speech.length, speech.length);
    }),
  );
  await Promise.all(lines.map((line) => line.hangUp()));
  return {
    transport,
    session_ids: lines.map((l) => l.sessionId),
    waits_ms: results.flatMap((r) => r.waits),
    missed: results.reduce((n, r) => n + r.missed, 0),
    session_seconds: results.reduce((s, r) => s + r.seconds, 0),
  };
}
