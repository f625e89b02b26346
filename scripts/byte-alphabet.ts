/**
 * GPT-2's byte-level alphabet: every byte as a printable character (space is `Ġ`, newline `Ċ`), as
 * byte-level BPE tokenizers (GPT-2, Whisper, Qwen) write their tokens. Indexed by byte value.
 */
export function byteAlphabet(): string[] {
  const chars: string[] = [];
  let extra = 0;
  for (let b = 0; b < 256; b++) chars.push(String.fromCodePoint(printableByte(b) ? b : 256 + extra++));
  return chars;
}

/** The bytes GPT-2 writes as themselves; the others map to code points from 256 up. */
export function printableByte(b: number): boolean {
  return (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
}
