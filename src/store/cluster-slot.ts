/**
 * The Redis Cluster slot of a key (CRC16/XMODEM of its hash tag, mod 16384), as the cluster
 * computes it (https://redis.io/docs/latest/operate/oss_and_stack/reference/cluster-spec/): when
 * the key has a `{…}` with something inside, only the first such part is hashed.
 */

export const clusterSlots = 16_384;

const table = new Uint16Array(256);
for (let i = 0; i < 256; i++) {
  let crc = i << 8;
  for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  table[i] = crc;
}

function crc16(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) crc = ((crc << 8) & 0xffff) ^ table[((crc >> 8) ^ byte) & 0xff]!;
  return crc;
}

/** The part of `key` the cluster hashes: the first non-empty `{…}`, or the whole key. */
export function hashTag(key: string): string {
  const open = key.indexOf('{');
  if (open === -1) return key;
  const close = key.indexOf('}', open + 1);
  return close === -1 || close === open + 1 ? key : key.slice(open + 1, close);
}

export function keySlot(key: string): number {
  return crc16(new TextEncoder().encode(hashTag(key))) % clusterSlots;
}
