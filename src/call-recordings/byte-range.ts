/** A Range header's one byte range over a file of `size` bytes (RFC 9110 §14). */
export type ByteRange =
  /** No usable Range: serve the whole file (no header, another unit, several ranges, junk). */
  | { kind: 'whole' }
  | { kind: 'range'; start: number; end: number }
  /** Syntactically a range, but none of it is in the file: 416. */
  | { kind: 'unsatisfiable' };

/**
 * Parses `bytes=a-b`, `bytes=a-` and `bytes=-n`. Several ranges are answered whole (a server may
 * ignore Range), as is a header it cannot parse; a range starting past the end is unsatisfiable.
 */
export function parseByteRange(header: string | undefined, size: number): ByteRange {
  if (header === undefined || header === '') return { kind: 'whole' };
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (match === null) return { kind: 'whole' };
  const [, first = '', last = ''] = match;
  if (first === '' && last === '') return { kind: 'whole' };
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0 || size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'range', start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  if (last !== '' && Number(last) < start) return { kind: 'whole' };
  if (start >= size) return { kind: 'unsatisfiable' };
  return { kind: 'range', start, end };
}
