import type { WebSocket } from 'ws';
import { firstValueFrom, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logging/logger.js';
import { TwilioTransport } from '../../src/realtime/telephony/twilio-transport.js';
import type { StoredAgent } from '../../src/schemas/agent.js';
import type { Message } from '../../src/schemas/conversation.js';
import type { Session } from '../../src/schemas/session.js';
import { SessionWrites } from '../../src/session-writes/session-writes.js';
import type { PlayedTurn, TurnRecorder } from '../../src/session-writes/turn-recorder.js';
import { TurnReport } from '../../src/session-writes/turn-report.js';

/** A socket that keeps what the transport sent. */
function socket() {
  const sent: { event: string; mark?: { name: string } }[] = [];
  const ws = { OPEN: 1, CONNECTING: 0, readyState: 1, send: (t: string) => sent.push(JSON.parse(t)), close: () => {} };
  return { ws: ws as unknown as WebSocket, sent };
}

const frame = () => new Int16Array(160); // 20 ms at 8 kHz
const marksOf = (sent: { event: string; mark?: { name: string } }[]) =>
  sent.flatMap((m) => (m.event === 'mark' && m.mark !== undefined ? [m.mark.name] : []));

describe('what the caller heard of an answer, by the marks Twilio echoes', () => {
  it('counts the current answer from its audio_start, up to the last echoed mark', () => {
    const { ws, sent } = socket();
    const t = new TwilioTransport(ws, 'MZ1', 'CA1');
    // an earlier answer: 400 ms sent, all heard
    for (let i = 0; i < 20; i++) t.sendAudio(frame());
    for (const name of marksOf(sent)) t.receiveMark(name);
    t.send({ type: 'audio_start', turn: 1, sample_rate: 8000 });
    expect(t.answerHeardMs()).toBe(0);
    for (let i = 0; i < 25; i++) t.sendAudio(frame()); // 500 ms: marks at 200 and 400 ms of this answer
    const [, , first, second] = marksOf(sent);
    t.receiveMark(first!);
    expect(t.answerHeardMs()).toBe(200);
    // barge-in: the clear drops what Twilio held; the echo of a cleared mark counts nothing
    t.send({ type: 'interrupted', turn: 1 });
    t.receiveMark(second!);
    expect(t.answerHeardMs()).toBe(200);
    expect(t.sentMs - 400).toBe(500);
  });

  it('keypad digits reach the session as one dtmf message at #', async () => {
    const t = new TwilioTransport(socket().ws, 'MZ1', 'CA1');
    const messages = firstValueFrom(t.messages$.pipe(toArray()));
    for (const digit of ['4', '2', '#']) t.receiveDigit(digit);
    t.finish();
    expect(await messages).toEqual([{ type: 'dtmf', digits: '42' }]);
  });
});

describe('a cut answer records what the carrier says was heard', () => {
  async function cutAfter(wallMs: number, transport: { outputSampleRate: number; answerHeardMs?(): number }) {
    const played: PlayedTurn[] = [];
    const recorder = {
      answered: async () => ({ id: 'msg_1' }) as Message,
      played: async (_a: StoredAgent, _s: Session, _id: string, p: PlayedTurn) => void played.push(p),
    } as unknown as TurnRecorder;
    let now = 0;
    const report = new TurnReport(
      {
        transport,
        recorder,
        records: new SessionWrites({ logger: createLogger('silent') }),
        agent: { id: 'agt_1', mode: 'enhanced' } as StoredAgent,
        session: { id: 'ses_1', conversation_id: 'cnv_1' } as Session,
        now: () => now,
      },
      1,
      { kind: 'text', text: 'hi', receivedAt: 0 },
    );
    report.on({ type: 'sentence', index: 0, text: 'We open at nine.' });
    report.on({ type: 'sentence_audio', sentence: 0 });
    now = wallMs;
    report.cut();
    await new Promise((r) => setTimeout(r, 10)); // the queued record writes
    return played;
  }

  it('a phone call: the marks-based heard time, not the time since the first frame', async () => {
    const [played] = await cutAfter(900, { outputSampleRate: 8000, answerHeardMs: () => 400 });
    expect(played).toMatchObject({ interrupted: true, durationMs: 400 });
  });

  it('other transports: the time since the first frame', async () => {
    const [played] = await cutAfter(900, { outputSampleRate: 16000 });
    expect(played).toMatchObject({ interrupted: true, durationMs: 900 });
  });
});
