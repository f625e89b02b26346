import { describe, expect, it } from 'vitest';
import { parseByteRange } from '../../src/call-recordings/byte-range.js';

describe('parseByteRange over a 1000-byte file', () => {
  it.each([
    ['bytes=0-99', { kind: 'range', start: 0, end: 99 }],
    ['bytes=900-', { kind: 'range', start: 900, end: 999 }],
    ['bytes=990-5000', { kind: 'range', start: 990, end: 999 }],
    ['bytes=-100', { kind: 'range', start: 900, end: 999 }],
    ['bytes=-5000', { kind: 'range', start: 0, end: 999 }],
    ['bytes=1000-', { kind: 'unsatisfiable' }],
    ['bytes=1000-1100', { kind: 'unsatisfiable' }],
    ['bytes=-0', { kind: 'unsatisfiable' }],
    // answered whole: no header, another unit, several ranges, an inverted or empty range, junk
    [undefined, { kind: 'whole' }],
    ['items=0-1', { kind: 'whole' }],
    ['bytes=0-1,5-9', { kind: 'whole' }],
    ['bytes=50-10', { kind: 'whole' }],
    ['bytes=-', { kind: 'whole' }],
    ['bytes=abc', { kind: 'whole' }],
  ])('%s', (header, expected) => {
    expect(parseByteRange(header, 1000)).toEqual(expected);
  });

  it('an empty file satisfies no range', () => {
    expect(parseByteRange('bytes=0-', 0)).toEqual({ kind: 'unsatisfiable' });
    expect(parseByteRange('bytes=-10', 0)).toEqual({ kind: 'unsatisfiable' });
  });
});
