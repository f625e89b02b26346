import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readWav } from '../../src/audio/wav.js';
import { keySlot } from '../../src/store/cluster-slot.js';
import { eventually } from '../support/eventually.js';
import { everyKey } from '../support/every-key.js';
import { HttpReceiver } from '../support/http-receiver.js';
import { OpenAiAudioServer } from '../support/openai-audio-server.js';
import { startParleyOn } from '../support/parley-topology.js';
import type { TestParley } from '../support/parley.js';
import { command, RedisClusterSet } from '../support/redis-topology.js';
import { freePort } from '../support/redis-server.js';
import { startMain, stopMain, waitForExit } from '../support/main-process.js';
import { adminClient } from '../support/admin-client.js';
import { testAdminKey } from '../support/parley.js';
import { VoiceClient } from '../support/voice-client.js';
import { ragEnv, waitForDocument } from './rag-helpers.js';

/**
 * Parley on a three-master Redis Cluster (issue 23): every key carries the `{parley}` hash tag, so
 * every script and transaction touches one slot; the whole API and a voice turn run with no
 * CROSSSLOT error, and Parley's data, BullMQ's queues included, sits on that slot's master.
 */

let cluster: RedisClusterSet;
let p: TestParley;
let audioApi: OpenAiAudioServer;
let webhook: HttpReceiver;
let events: HttpReceiver;
const clients: VoiceClient[] = [];

beforeAll(async () => {
  cluster = await RedisClusterSet.start(3, 1);
  // Parley's master gets a second replica: after its failover one is left to acknowledge writes (WAIT 1).
  await cluster.addReplica(await cluster.slotOwner(keySlot('{parley}')));
  audioApi = await OpenAiAudioServer.start({ transcribe: () => 'What time do you open?' });
  webhook = await HttpReceiver.start((req) => ({
    body: { response: `You said: ${(req.json as { data: { transcript: string } }).data.transcript}` },
  }));
  events = await HttpReceiver.start(() => ({ status: 204 }));
  p = await startParleyOn({
    ...ragEnv,
    REDIS_CLUSTER_NODES: cluster.nodeList,
    REDIS_WAIT_REPLICAS: '1',
    PARLEY_REDIS_TIMEOUT_MS: '1000',
    OPENAI_BASE_URL: audioApi.baseUrl,
    OPENAI_API_KEY: 'sk-test',
    PARLEY_EMBEDDING_WORKERS: '1',
    PARLEY_EVENT_RETRY_BASE_MS: '50',
    PARLEY_RATE_LIMIT_BURST: '200',
    PARLEY_RATE_LIMIT_RPM: '1',
  });
}, 60_000);
afterEach(() => {
  for (const c of clients.splice(0)) c.close();
});
afterAll(async () => {
  await p?.close();
  await Promise.all([audioApi?.close(), webhook?.close(), events?.close()]);
  await cluster?.close();
});

async function agent(name: string, presetId?: string): Promise<{ id: string; agent_token: string }> {
  const res = await p.request('POST', '/admin/v1/agents', {
    body: {
      name,
      mode: 'passthrough',
      webhook_url: webhook.url,
      events_url: `${events.url}/events`,
      transcription_silence_ms: 200,
      ...(presetId === undefined ? {} : { preset_id: presetId }),
    },
  });
  expect(res.status).toBe(201);
  return res.body as { id: string; agent_token: string };
}

function chat(token: string, message: string, sessionId?: string) {
  return p.request('POST', '/sdk/v1/chat', {
    body: { agent_token: token, message, ...(sessionId === undefined ? {} : { session_id: sessionId }) },
    apiKey: null,
  });
}

describe('Parley on a 3-master Redis Cluster', () => {
  it('agents, presets, chat sessions, conversations, events and rate limits', async () => {
    const preset = await p.request('POST', '/admin/v1/presets', { body: { name: 'cluster preset' } });
    expect(preset.status).toBe(201);
    const a = await agent('cluster agent', preset.body.id as string);
    expect((await p.request('PATCH', `/admin/v1/agents/${a.id}`, { body: { name: 'renamed' } })).status).toBe(200);
    expect((await p.request('GET', '/admin/v1/agents')).body.data.length).toBeGreaterThan(0);
    expect((await p.request('GET', '/admin/v1/presets')).status).toBe(200);

    const first = await chat(a.agent_token, 'hello');
    expect(first.status).toBe(200);
    const sessionId = first.body.session_id as string;
    expect((await chat(a.agent_token, 'again', sessionId)).status).toBe(200);
    const session = await p.request('GET', `/admin/v1/sessions/${sessionId}`);
    expect(session.status).toBe(200);
    const conversation = await p.request('GET', `/admin/v1/conversations/${session.body.conversation_id}`);
    expect(conversation.body.messages).toHaveLength(4);
    expect((await p.request('GET', '/admin/v1/sessions?status=active')).status).toBe(200);
    expect((await p.request('GET', '/admin/v1/conversations')).status).toBe(200);
    expect((await p.request('GET', '/admin/v1/errors')).status).toBe(200);

    // events through the outbox and BullMQ on the cluster
    await eventually(
      () => events.requests.map((r) => (r.json as { type: string; session_id: string }).session_id === sessionId),
      (seen) => seen.filter(Boolean).length >= 3,
      { what: 'session_start and two llm_response events' },
    );

    // rate limit: a fresh agent's bucket of 200, then 429
    const limited = await agent('limited');
    const statuses: number[] = [];
    for (let i = 0; i < 201; i++) statuses.push((await chat(limited.agent_token, `n${i}`)).status);
    expect(statuses).toEqual([...Array<number>(200).fill(200), 429]);

    // deleting touches the agent's, the preset's and the global indexes in one script
    expect((await p.request('DELETE', `/admin/v1/agents/${limited.id}`)).status).toBe(204);
    expect((await p.request('DELETE', `/admin/v1/presets/${preset.body.id}`)).status).toBe(409);
  });

  it('documents: uploaded and ingested through the BullMQ queue', async () => {
    const a = await agent('rag agent');
    const upload = await p.request('POST', `/admin/v1/agents/${a.id}/documents`, {
      body: { name: 'hours.txt', text: 'The shop opens at nine in the morning and closes at six.' },
    });
    expect(upload.status).toBe(202);
    const doc = await waitForDocument(p, a.id, upload.body.id as string, 30_000);
    expect(doc.status).toBe('ready');
    const list = await p.request('GET', `/admin/v1/agents/${a.id}/documents`);
    expect(list.body.data).toHaveLength(1);
  });

  it('a voice turn over the WebSocket transport', async () => {
    const preset = await p.request('POST', '/admin/v1/presets', {
      body: {
        name: 'voice',
        stt: { provider: 'openai', model: 'whisper-1', language: 'en' },
        tts: { provider: 'espeak', model: 'espeak-ng', voice: 'en-us' },
      },
    });
    const a = await agent('voice agent', preset.body.id as string);
    const res = await p.request('POST', '/sdk/v1/session', {
      apiKey: null,
      body: { agent_token: a.agent_token, user_id: 'caller', transport: 'websocket' },
    });
    expect(res.status).toBe(201);
    const client = await VoiceClient.connect(res.body.connection_url as string, res.body.connection_token as string);
    clients.push(client);
    await client.untilEvent('ready');
    await client.stream(await readWav(new URL('../fixtures/audio/hello.wav', import.meta.url).pathname), { speed: 4 });
    expect((await client.untilAnswer()).text).toBe('You said: What time do you open?');
    await client.untilEvent('audio_end');
    client.close();
    await eventually(
      () => p.request('GET', `/admin/v1/sessions/${res.body.session_id}`),
      (s) => s.body.status === 'ended',
      { what: 'the voice session ended' },
    );
  });

  it('the cost on the one master: Redis commands per chat turn, its event delivered', async () => {
    const a = await agent('measured');
    const first = await chat(a.agent_token, 'warm up');
    const sessionId = first.body.session_id as string;
    const delivered = () =>
      events.requests.filter((r) => (r.json as { session_id: string }).session_id === sessionId).length;
    await eventually(delivered, (n) => n >= 2, { what: 'the warm-up events' });
    const commands = async () => {
      const counts = await Promise.all(
        cluster.nodes.map(async (n) =>
          /total_commands_processed:(\d+)/.exec(String(await command(n.port, ['INFO', 'stats']))),
        ),
      );
      return counts.map((m) => Number(m?.[1] ?? 0));
    };
    const before = await commands();
    const started = performance.now();
    const turns = 20;
    for (let i = 0; i < turns; i++) expect((await chat(a.agent_token, `turn ${i}`, sessionId)).status).toBe(200);
    await eventually(delivered, (n) => n >= 2 + turns, { what: 'an llm_response per turn' });
    const elapsedS = (performance.now() - started) / 1000;
    const after = await commands();
    const deltas = after.map((n, i) => n - before[i]!);
    // background work (relay polls, heartbeats, BullMQ's markers, the probes above) counts too: an upper bound
    const perTurn = Math.max(...deltas) / turns;
    console.info(
      `cluster: ${perTurn.toFixed(1)} Redis commands per chat turn with its event delivered ` +
        `(per node over ${elapsedS.toFixed(1)} s: ${deltas.join(', ')})`,
    );
    expect(perTurn).toBeGreaterThan(1);
  });

  it("every key Parley built sits in the `{parley}` slot, on one master; the cluster agrees with Parley's slot maths", async () => {
    const slot = keySlot('{parley}');
    for (const { key } of everyKey(p.parley.store.keys)) {
      expect(Number(await command(cluster.nodes[0]!.port, ['CLUSTER', 'KEYSLOT', key]))).toBe(slot);
    }
    const masters = [];
    for (const n of cluster.nodes)
      if (String(await command(n.port, ['INFO', 'replication'])).includes('role:master')) masters.push(n);
    expect(masters).toHaveLength(3);
    const sizes = await Promise.all(masters.map(async (n) => Number(await command(n.port, ['DBSIZE']))));
    // one master holds every key (records, indexes, outboxes, BullMQ's queues); the others none
    expect(sizes.filter((n) => n > 0)).toHaveLength(1);
    const owner = masters[sizes.findIndex((n) => n > 0)]!;
    expect(owner.port).toBe(await cluster.slotOwner(slot));
    const keys = (await command(owner.port, ['KEYS', '*'])) as string[];
    expect(keys.some((k) => k.startsWith('{parley}:bull:'))).toBe(true);
    expect(keys.filter((k) => keySlot(k) !== slot)).toEqual([]);
  });

  it('the real entry point: two worker processes on the cluster, no embedded redis-server', async () => {
    const port = await freePort();
    const dataDir = mkdtempSync(join(tmpdir(), 'parley-cluster-main-'));
    const main = startMain({
      REDIS_CLUSTER_NODES: cluster.nodeList,
      PARLEY_WORKERS: '2',
      PORT: String(port),
      PARLEY_ADMIN_API_KEY: testAdminKey,
      PARLEY_DATA_DIR: dataDir,
    });
    try {
      await eventually(
        () => main.stdout(),
        (out) => out.includes('Parley listening on') || main.child.exitCode !== null,
        { what: 'Parley listening', timeoutMs: 30_000 },
      );
      const api = adminClient(`http://127.0.0.1:${port}`, testAdminKey);
      for (let i = 0; i < 4; i++) {
        const res = await api.request('POST', '/admin/v1/agents', { body: { name: `main ${i}` } });
        expect(res.status).toBe(201);
      }
      expect(main.stdout()).not.toMatch(/redis-server/i);
    } finally {
      expect((await stopMain(main)).code).toBe(0);
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 40_000);

  it('refuses to start with two Redis topologies named', async () => {
    const main = startMain({ REDIS_CLUSTER_NODES: cluster.nodeList, REDIS_URL: 'redis://127.0.0.1:1' });
    const { code } = await waitForExit(main);
    expect(code).not.toBe(0);
    expect(`${main.stdout()}${main.stderr()}`).toContain('REDIS_URL, REDIS_CLUSTER_NODES: set only one');
  });

  it("the slot's master killed: 503 while the cluster fails over to its replica, then served again, no acknowledged turn lost", async () => {
    const a = await agent('failover');
    const first = await chat(a.agent_token, 't0');
    expect(first.status).toBe(200);
    const sessionId = first.body.session_id as string;
    const slot = keySlot('{parley}');
    const killedAt = performance.now();
    const oldOwner = await cluster.killSlotOwner(slot);
    const attempts: { text: string; status: number; ms: number; at: number; code?: string }[] = [];
    let recoveredAt: number | undefined;
    for (let i = 1; performance.now() - killedAt < 20_000; i++) {
      const start = performance.now();
      const res = await chat(a.agent_token, `t${i}`, sessionId);
      const end = performance.now();
      const code = (res.body as { error?: { code: string } }).error?.code;
      attempts.push({ text: `t${i}`, status: res.status, ms: end - start, at: start - killedAt, code });
      if (res.status === 200 && attempts.some((t) => t.status !== 200)) recoveredAt ??= end;
      if (recoveredAt !== undefined && attempts.filter((t) => t.status === 200).length >= 5) break;
      if (res.status !== 200) await new Promise((r) => setTimeout(r, 100));
    }
    expect(await cluster.slotOwner(slot)).not.toBe(oldOwner);
    const failed = attempts.filter((t) => t.status !== 200);
    console.info(
      `cluster failover: ${failed.length} requests refused; first success ${Math.round((recoveredAt ?? Number.NaN) - killedAt)} ms ` +
        `after the kill; slowest answer ${Math.round(Math.max(...attempts.map((t) => t.ms)))} ms`,
    );
    expect(failed.filter((t) => t.status !== 503 || t.code !== 'store_unavailable')).toEqual([]);
    expect(recoveredAt).toBeDefined();
    expect(Math.max(...attempts.map((t) => t.ms))).toBeLessThan(2_000);
    const session = await p.request('GET', `/admin/v1/sessions/${sessionId}`);
    const conversation = await p.request('GET', `/admin/v1/conversations/${session.body.conversation_id}`);
    const stored = new Set((conversation.body.messages as { text: string }[]).map((m) => m.text));
    const acknowledged = ['t0', ...attempts.filter((t) => t.status === 200).map((t) => t.text)];
    expect(acknowledged.filter((t) => !stored.has(t))).toEqual([]);
  }, 40_000);
});
