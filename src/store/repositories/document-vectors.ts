/** A float32 vector as the little-endian blob Redis stores (a copy, never a view into a pool). */
export function vectorToBlob(v: Float32Array): Buffer {
  const out = Buffer.allocUnsafe(v.length * 4);
  for (let i = 0; i < v.length; i++) out.writeFloatLE(v[i]!, i * 4);
  return out;
}

export function blobToVector(b: Buffer): Float32Array {
  const v = new Float32Array(b.length >>> 2);
  for (let i = 0; i < v.length; i++) v[i] = b.readFloatLE(i * 4);
  return v;
}
