import { JobStatus } from '@livekit/protocol';
import { expect } from 'vitest';
import type { Reply } from '../http-receiver.js';
import { eventually } from '../eventually.js';
import { HttpReceiver } from '../http-receiver.js';
import { OpenAiAudioServer } from '../openai-audio-server.js';
import { startParley, type TestParley } from '../parley.js';
import { TestRedis } from '../redis-server.js';
import { FakeRooms, type FakeRoom } from './fake-room.js';
import { FakeLivekit } from './server.js';

/** A Parley registered with the fake LiveKit, rooms stood in for with a real AudioSource, STT and webhook local. */
export interface LivekitBed {
  redis: TestRedis;
  fake: FakeLivekit;
  rooms: FakeRooms;
  audioApi: OpenAiAudioServer;
  webhook: HttpReceiver;
  p: TestParley;
  /**
   * A passthrough agent (OpenAI STT, espeak TTS, the bed's webhook; `settings` on top) dispatched to
   * room `name`; `join` brings the user in once the agent has joined; resolves once the job runs.
   * `stt` replaces the preset's STT (e.g. pocketsphinx, for real recognition).
   */
  dispatch<T>(
    name: string,
    settings: Record<string, unknown>,
    join: (room: FakeRoom) => T,
    stt?: Record<string, unknown>,
  ): Promise<{ agentId: string; job: { id: string }; room: FakeRoom; joined: T }>;
  close(): Promise<void>;
}

/**
 * Starts the bed and waits for Parley's worker to register as `parley`. `transcribe` answers the
 * STT calls (by index); `reply` answers the webhook for each transcript.
 */
export async function startLivekitBed(o: {
  transcribe: (call: { index: number }) => string;
  reply: (transcript: string) => Reply;
}): Promise<LivekitBed> {
  const redis = await TestRedis.start();
  const fake = await FakeLivekit.start();
  const rooms = new FakeRooms(fake.apiKey, fake.apiSecret, { realAudioSource: true });
  const audioApi = await OpenAiAudioServer.start({ transcribe: o.transcribe });
  const webhook = await HttpReceiver.start((req) =>
    o.reply((req.json as { data: { transcript: string } }).data.transcript),
  );
  const p = await startParley(
    redis,
    { ...fake.env, OPENAI_BASE_URL: audioApi.baseUrl, OPENAI_API_KEY: 'sk-test', PARLEY_DRAIN_TIMEOUT_MS: '200' },
    { livekit: { connect: rooms.connect, worker: { statusIntervalMs: 500 } } },
  );
  await eventually(
    () => fake.registered('parley').length,
    (n) => n === 1,
    { what: 'registration' },
  );
  return {
    redis,
    fake,
    rooms,
    audioApi,
    webhook,
    p,
    dispatch: async (name, settings, join, stt = { provider: 'openai', model: 'whisper-1', language: 'en' }) => {
      const preset = await p.request('POST', '/admin/v1/presets', {
        body: {
          name: `lk ${name}`,
          stt,
          tts: { provider: 'espeak', model: 'espeak-ng', voice: 'en-us' },
        },
      });
      const agent = await p.request('POST', '/admin/v1/agents', {
        body: { name, mode: 'passthrough', webhook_url: webhook.url, preset_id: preset.body.id, ...settings },
      });
      expect(agent.status).toBe(201);
      const { job } = await fake.dispatch(name, 'parley', JSON.stringify({ agent_id: agent.body.id }));
      const room = await rooms.joined(name);
      const joined = join(room);
      await eventually(
        () => fake.jobs.get(job.id)!.statuses,
        (s) => s.includes(JobStatus.JS_RUNNING),
        { what: 'running' },
      );
      return { agentId: agent.body.id as string, job, room, joined };
    },
    close: async () => {
      await p.close();
      await Promise.all([fake.stop(), audioApi.close(), webhook.close()]);
      await redis.close();
    },
  };
}
