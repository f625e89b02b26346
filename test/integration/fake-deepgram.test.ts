import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { FakeDeepgram } from '../support/fake-deepgram.js';

/**
 * The fake itself, driven by a plain WebSocket client: it must speak Deepgram's protocol as the
 * public docs describe it, or the provider tests against it prove nothing.
 */

let fake: FakeDeepgram;
beforeAll(async () => {
  fake = await FakeDeepgram.start({ apiKey: 'k', resultDelayMs: 10, interimEveryMs: 100, idleTimeoutMs: 300 });
});
afterAll(async () => fake?.close());

/** Opens a socket, runs `drive` once open, and collects every text frame until the fake closes it. */
function session(
  query: string,
  options: ConstructorParameters<typeof WebSocket>[2] & { protocols?: string[] },
  drive: (ws: WebSocket) => void | Promise<void>,
): Promise<{ frames: Record<string, unknown>[]; code: number; reason: string; protocol: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${fake.url}/v1/listen?${query}`, options.protocols ?? [], options);
    const frames: Record<string, unknown>[] = [];
    ws.on('message', (data) => frames.push(JSON.parse(String(data)) as Record<string, unknown>));
    ws.on('open', () => void Promise.resolve(drive(ws)).catch(reject));
    ws.on('close', (code, reason) => resolve({ frames, code, reason: String(reason), protocol: ws.protocol }));
    ws.on('error', reject);
  });
}

const audio = Buffer.alloc(16_000 * 2 * 0.5); // 0.5 s of linear16 at 16 kHz

describe('FakeDeepgram', () => {
  it('takes the key as the token subprotocol too; CloseStream: interims, the final, Metadata, close 1000', async () => {
    fake.reset(['Hello, there.']);
    const query =
      'model=nova-3&encoding=linear16&sample_rate=16000&punctuate=true&vad_events=true&utterance_end_ms=1000';
    const result = await session(query, { protocols: ['token', 'k'] }, async (ws) => {
      for (let at = 0; at < audio.length; at += 3200) ws.send(audio.subarray(at, at + 3200));
      ws.send(JSON.stringify({ type: 'CloseStream' }));
    });
    expect(result).toMatchObject({ code: 1000, protocol: 'token' });
    const types = result.frames.map((f) => f.type);
    expect(types[0]).toBe('SpeechStarted');
    expect(types.slice(-3)).toEqual(['Results', 'UtteranceEnd', 'Metadata']);
    const final = result.frames.at(-3)!;
    expect(final).toMatchObject({ is_final: true, from_finalize: false, channel_index: [0, 1] });
    expect(final.channel).toMatchObject({ alternatives: [{ transcript: 'Hello, there.' }] });
    expect(result.frames.filter((f) => f.type === 'Results' && f.is_final === false).length).toBeGreaterThan(0);
    expect(result.frames.at(-1)).toMatchObject({ type: 'Metadata', duration: 0.5, channels: 1 });
  });

  it('KeepAlive holds an idle stream open; without it Deepgram closes 1011 NET-0001', async () => {
    fake.reset();
    const kept = await session('model=nova-3', { headers: { Authorization: 'Token k' } }, async (ws) => {
      for (let i = 0; i < 4; i++) {
        await new Promise((r) => setTimeout(r, 150));
        ws.send(JSON.stringify({ type: 'KeepAlive' }));
      }
      ws.send(JSON.stringify({ type: 'CloseStream' }));
    });
    expect(kept.code).toBe(1000);
    expect(kept.frames.map((f) => f.type)).toEqual(['Metadata']);
    const idle = await session('model=nova-3', { headers: { Authorization: 'Token k' } }, () => undefined);
    expect(idle).toMatchObject({ code: 1011, reason: 'NET-0001' });
  });

  it('refuses a bad key (401) and bad parameters (400) at the handshake, with dg-error', async () => {
    const refused = (query: string, key: string) =>
      new Promise<{ status: number; error: string | undefined }>((resolve, reject) => {
        const ws = new WebSocket(`${fake.url}/v1/listen?${query}`, { headers: { Authorization: `Token ${key}` } });
        ws.on('unexpected-response', (_req, res) => {
          resolve({ status: res.statusCode ?? 0, error: res.headers['dg-error'] as string | undefined });
          ws.terminate();
        });
        ws.on('open', () => reject(new Error('opened')));
        ws.on('error', () => undefined); // the terminate above
      });
    expect(await refused('model=nova-3', 'wrong')).toEqual({ status: 401, error: 'Invalid credentials.' });
    expect(await refused('model=nova-3&keywords=table', 'k')).toMatchObject({ status: 400 });
    expect(await refused('model=nova-3&encoding=linear16', 'k')).toMatchObject({ status: 400 });
    expect(await refused('model=whisper-9', 'k')).toMatchObject({ status: 400 });
  });

  it("with a random delay per result (Deepgram's 150-300 ms), results still come in the order they were due", async () => {
    const jittery = await FakeDeepgram.start({
      apiKey: 'k',
      resultDelayMs: 5,
      resultJitterMs: 60,
      interimEveryMs: 100,
      wordMs: 100,
      script: ['one two three four five six seven eight.'],
    });
    try {
      const url = `${jittery.url}/v1/listen?model=nova-3&encoding=linear16&sample_rate=16000&punctuate=true`;
      const frames = await new Promise<Record<string, unknown>[]>((resolve, reject) => {
        const ws = new WebSocket(url, { headers: { Authorization: 'Token k' } });
        const got: Record<string, unknown>[] = [];
        ws.on('message', (data) => got.push(JSON.parse(String(data)) as Record<string, unknown>));
        ws.on('open', () => {
          const second = Buffer.alloc(16_000 * 2 * 0.8);
          for (let at = 0; at < second.length; at += 3200) ws.send(second.subarray(at, at + 3200));
          ws.send(JSON.stringify({ type: 'CloseStream' }));
        });
        ws.on('close', () => resolve(got));
        ws.on('error', reject);
      });
      const heard = frames
        .filter((f) => f.type === 'Results')
        .map((f) => (f.channel as { alternatives: { transcript: string }[] }).alternatives[0]!.transcript);
      expect(heard).toEqual([
        'one',
        'one two',
        'one two three',
        'one two three four',
        'one two three four five',
        'one two three four five six',
        'one two three four five six seven',
        'one two three four five six seven eight.',
        'one two three four five six seven eight.',
      ]);
      expect(frames.filter((f) => f.type === 'Results').map((f) => f.is_final)).toEqual([
        ...Array(8).fill(false),
        true,
      ]);
      expect(frames.at(-1)).toMatchObject({ type: 'Metadata' });
    } finally {
      await jittery.close();
    }
  });
});
