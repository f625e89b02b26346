import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { connectRedis, type Redis } from '../../src/store/redis.js';
import { Store } from '../../src/store/store.js';
import { TestRedis } from '../support/redis-server.js';

/**
 * The LiveKit repository against a real redis-server, read back with a plain client: every
 * instance shares these keys (heartbeats, room links), so their names and expiries are pinned here.
 */
let redis: TestRedis;
let client: Redis;
let store: Store;

beforeAll(async () => {
  redis = await TestRedis.start({ external: false });
  client = await connectRedis({ url: redis.url });
  store = new Store(client, 'parley');
});

afterAll(async () => {
  client?.destroy();
  await redis?.close();
});

beforeEach(async () => {
  await redis.flush();
});

describe('store.livekit', () => {
  it('writes a heartbeat under the instance key with its expiry, indexed by time, and removes it', async () => {
    const now = Date.now();
    await store.livekit.beat('host-1-abc', '{"instance_id":"host-1-abc"}', now, 10_000);
    expect(await client.get('parley:livekit:instance:host-1-abc')).toBe('{"instance_id":"host-1-abc"}');
    const ttl = await client.pTTL('parley:livekit:instance:host-1-abc');
    expect(ttl).toBeGreaterThan(9_000);
    expect(ttl).toBeLessThanOrEqual(10_000);
    expect(await client.zScore('parley:livekit:instances', 'host-1-abc')).toBe(now);

    await store.livekit.removeInstance('host-1-abc');
    expect(await client.exists(['parley:livekit:instance:host-1-abc', 'parley:livekit:instances'])).toBe(0);
  });

  it('lists fresh heartbeats oldest first, pruning stale index entries and skipping expired ones', async () => {
    const now = Date.now();
    await store.livekit.beat('old', '"old"', now - 60_000, 10_000);
    await store.livekit.beat('b', '"b"', now - 1_000, 10_000);
    await store.livekit.beat('a', '"a"', now - 2_000, 10_000);
    await client.zAdd('parley:livekit:instances', { score: now, value: 'gone' }); // its heartbeat expired

    expect(await store.livekit.heartbeats(now - 10_000)).toEqual(['"a"', '"b"']);
    expect(await client.zRange('parley:livekit:instances', 0, -1)).toEqual(['a', 'b', 'gone']);
  });

  it('links a room to its job with an expiry, reads links in order, and unlinks', async () => {
    const link = {
      session_id: 'ses_1',
      agent_id: 'agt_1',
      job_id: 'AJ_1',
      worker_id: '',
      instance_id: 'host-1-abc',
      participant: 'user-1',
      started_ms: '1700000000000',
    };
    await store.livekit.linkRoom('room-a', link, 86_400_000);
    expect(await client.hGetAll('parley:livekit:room:room-a')).toEqual(link);
    expect(await client.pTTL('parley:livekit:room:room-a')).toBeGreaterThan(86_000_000);

    expect(await store.livekit.roomLinks(['nobody', 'room-a'])).toEqual([{}, link]);
    await store.livekit.unlinkRoom('room-a');
    expect(await client.exists('parley:livekit:room:room-a')).toBe(0);
  });
});
