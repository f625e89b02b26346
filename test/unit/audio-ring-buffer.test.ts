import { describe, expect, it } from 'vitest';
import { Int16Ring } from '../../src/audio/ring-buffer.js';

const seq = (from: number, count: number) => Int16Array.from({ length: count }, (_, i) => from + i);

describe('Int16Ring', () => {
  it('keeps the newest samples by absolute index across wrap-around', () => {
    const ring = new Int16Ring(10);
    ring.write(seq(0, 7));
    ring.write(seq(7, 7)); // wraps: holds 4..13
    expect(ring.written).toBe(14);
    expect(ring.oldest).toBe(4);
    expect(Array.from(ring.copy(4, 14))).toEqual(Array.from(seq(4, 10)));
    expect(Array.from(ring.copy(8, 12))).toEqual([8, 9, 10, 11]);
  });

  it('reads a wrapped range as two views without copying', () => {
    const ring = new Int16Ring(8);
    ring.write(seq(0, 12)); // longer than the ring: keeps the tail 4..11
    const views: [number[], number][] = [];
    ring.read(5, 11, (view, offset) => views.push([Array.from(view), offset]));
    expect(views).toEqual([
      [[5, 6, 7], 0],
      [[8, 9, 10], 3],
    ]);
  });

  it('converts a wrapped range to float32 in place, at an offset, and returns its energy', () => {
    const ring = new Int16Ring(8);
    ring.write(seq(0, 12)); // holds 4..11
    const dst = new Float32Array(10).fill(9);
    const energy = ring.toFloat32(5, 11, dst, 2);
    const values = [5, 6, 7, 8, 9, 10].map((v) => v / 32768);
    expect(Array.from(dst)).toEqual([9, 9, ...values, 9, 9]);
    expect(energy).toBeCloseTo(
      values.reduce((sum, v) => sum + v * v, 0),
      15,
    );
    expect(() => ring.toFloat32(3, 6, dst, 0)).toThrow(RangeError);
    expect(() => ring.toFloat32(5, 11, dst, 5)).toThrow(RangeError);
  });

  it('refuses ranges it no longer holds', () => {
    const ring = new Int16Ring(4);
    ring.write(seq(0, 6));
    expect(() => ring.copy(1, 3)).toThrow(RangeError);
    expect(() => ring.copy(2, 7)).toThrow(RangeError);
  });
});
