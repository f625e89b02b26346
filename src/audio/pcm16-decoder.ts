/**
 * Turns a byte stream of little-endian PCM16 (an HTTP body, a child's stdout) into Int16Array
 * chunks. Stream chunks split anywhere, so an odd trailing byte is carried to the next chunk.
 * Each returned array is a fresh, aligned copy (stream chunks may start at odd offsets); one copy
 * per network chunk, never per sample.
 */
export class Pcm16Decoder {
  private carry: number | null = null;

  /** Samples completed by `bytes`; an empty array when fewer than two bytes are available. */
  push(bytes: Uint8Array): Int16Array {
    const extra = this.carry === null ? 0 : 1;
    const total = bytes.length + extra;
    const count = total >> 1;
    const out = new Int16Array(count);
    if (count > 0) {
      const target = new Uint8Array(out.buffer);
      let from = 0;
      if (this.carry !== null) {
        target[0] = this.carry;
        target.set(bytes.subarray(0, count * 2 - 1), 1);
        from = count * 2 - 1;
      } else {
        target.set(bytes.subarray(0, count * 2));
        from = count * 2;
      }
      this.carry = from < bytes.length ? bytes[from]! : null;
    } else if (bytes.length === 1 && this.carry === null) {
      this.carry = bytes[0]!;
    }
    return out;
  }

  /** True when a half sample is left over (a truncated stream). */
  get pending(): boolean {
    return this.carry !== null;
  }
}
