import { describe, expect, it } from 'vitest';
import { hashTag, keySlot } from '../../src/store/cluster-slot.js';
import { Keys } from '../../src/store/keys.js';
import { everyKey } from '../support/every-key.js';

describe('cluster slots', () => {
  it('CRC16 of the hash tag, as Redis computes it (values from the cluster spec and CLUSTER KEYSLOT)', () => {
    expect(keySlot('123456789')).toBe(0x31c3);
    expect(keySlot('foo')).toBe(12182);
    expect(keySlot('somekey')).toBe(11058);
    expect(keySlot('{user1000}.following')).toBe(keySlot('{user1000}.followers'));
    expect(hashTag('foo{}{bar}')).toBe('foo{}{bar}');
    expect(hashTag('foo{{bar}}zap')).toBe('{bar');
    expect(hashTag('{parley}:{agent:1}')).toBe('parley');
  });

  it('on a cluster (prefix `{parley}`) every key Parley builds is in one slot, so no script or MULTI can cross slots', () => {
    const keys = everyKey(new Keys('{parley}'));
    expect(keys.length).toBeGreaterThan(40);
    const slot = keySlot('{parley}');
    expect(keys.filter(({ key }) => keySlot(key) !== slot)).toEqual([]);
    // the BullMQ queues' prefix (`<prefix>:bull`) too
    expect(keySlot('{parley}:bull:events:wait')).toBe(slot);
  });

  it('on one server or Sentinels the key names stay as they were (prefix `parley`)', () => {
    expect(new Keys().agent('a1')).toBe('parley:{agent:a1}');
    expect(new Keys('{parley}').agent('a1')).toBe('{parley}:{agent:a1}');
  });
});
