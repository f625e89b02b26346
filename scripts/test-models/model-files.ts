/** A model folder's files by relative path: JSON objects (written pretty-printed) or raw bytes. */
export type ModelFiles = Record<string, object | Uint8Array>;
