import type { ChildProcess } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repairWavSizes } from '../../src/call-recordings/wav-file.js';
import { adminClient } from '../support/admin-client.js';
import { startParleyProcess } from '../support/main-process.js';
import { testAdminKey } from '../support/parley.js';
import { TestRedis } from '../support/redis-server.js';
import { readRecording, withoutZeros } from '../support/recording-file.js';
import { VoiceClient } from '../support/voice-client.js';

/**
 * A Parley process (src/main.ts) killed with SIGKILL in the middle of a recorded call: what it
 * wrote is a WAV file whose header covers the audio up to the last flush (every second), and the
 * repair pass sets the header from the file's length.
 */

const rate = 16_000;
let redis: TestRedis;
let dir: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  redis = await TestRedis.start();
  dir = await mkdtemp(join(tmpdir(), 'parley-recordings-crash-'));
});
afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await redis?.close();
  await rm(dir, { recursive: true, force: true });
});

/** Quiet noise with no zero sample, below the VAD's floor. */
function noise(ms: number): Int16Array {
  const out = new Int16Array((rate * ms) / 1000);
  for (let i = 0; i < out.length; i++) out[i] = (((i * 7919) % 97) + 11) * (i % 2 === 0 ? 1 : -1);
  return out;
}

describe('kill -9 mid-call', () => {
  it('leaves a recording playable up to the last second written', async () => {
    const main = await startParleyProcess(redis, { PARLEY_DATA_DIR: dir });
    children.push(main.child);
    const api = adminClient(main.url, testAdminKey);
    const agent = await api.request('POST', '/admin/v1/agents', { body: { name: 'recorded', recording: 'on' } });
    expect(agent.status).toBe(201);
    const session = await api.request('POST', '/sdk/v1/session', {
      apiKey: null,
      body: { agent_token: agent.body.agent_token, transport: 'websocket' },
    });
    expect(session.status).toBe(201);
    const client = await VoiceClient.connect(session.body.connection_url, session.body.connection_token);
    await client.untilEvent('ready');
    const sent = noise(2_600);
    await client.stream({ samples: sent, sampleRate: rate });
    main.child.kill('SIGKILL');
    expect(await main.exited).toBe('SIGKILL');
    client.close();

    const [name] = await readdir(join(dir, 'recordings', agent.body.id as string));
    const path = join(dir, 'recordings', agent.body.id as string, name!);
    const file = await readRecording(path);
    expect(file).toMatchObject({ channels: 2, sampleRate: rate });
    // the header covers at least the first second, and never more than the file holds
    expect(file.declaredBytes).toBeGreaterThanOrEqual(rate * 4);
    expect(file.declaredBytes).toBeLessThanOrEqual(file.fileDataBytes);
    // what a player reads (the header's length) is the caller's audio as sent, from its start
    const frames = file.declaredBytes / 4;
    const played = withoutZeros(file.channel[0]!.subarray(0, frames));
    expect(played.length).toBeGreaterThan(rate / 2);
    expect(played).toEqual(sent.subarray(0, played.length));

    expect(await repairWavSizes(path)).toBe(file.declaredBytes !== file.fileDataBytes);
    const repaired = await readRecording(path);
    expect(repaired.declaredBytes).toBe(repaired.fileDataBytes - (repaired.fileDataBytes % 4));
  }, 90_000);
});
