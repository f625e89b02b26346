import { z } from 'zod';

/**
 * ElevenLabs' input-streaming WebSocket (`GET /v1/text-to-speech/{voice_id}/stream-input`), as its
 * AsyncAPI document describes it: the client sends `{"text":" "}` first (with `voice_settings`),
 * then text chunks `{"text":"… ", "flush"?: true}` each ending with a space, and `{"text":""}` to
 * end; the server answers `{"audio": base64, "alignment", "normalizedAlignment"}` messages, then
 * `{"isFinal": true}`, and closes. Failures come as `{"message","error","code"}` and/or a close
 * with code 1008 (policy violation: a bad key, the quota, `inactivity_timeout`) or 1011.
 */

/** Where ElevenLabs' API is; PARLEY_ELEVENLABS_URL points elsewhere (a regional endpoint, a proxy, a fake). */
export const defaultElevenLabsUrl = 'wss://api.elevenlabs.io';

/** The raw PCM rates ElevenLabs streams (`pcm_<rate>`), 16-bit little-endian mono. */
export const pcmRates = [8_000, 16_000, 22_050, 24_000, 44_100] as const;

/** The PCM format to ask for to play at `rate`: that rate when offered, else the next above (or the highest). */
export function pcmFormatFor(rate: number): { format: string; sampleRate: number } {
  const sampleRate = pcmRates.find((r) => r >= rate) ?? pcmRates[pcmRates.length - 1]!;
  return { format: `pcm_${sampleRate}`, sampleRate };
}

/** `speed` in voice_settings: 0.7 – 1.2. */
export function voiceSpeed(speed: number): number {
  return Math.min(1.2, Math.max(0.7, speed));
}

export interface StreamInputQuery {
  voice: string;
  model: string;
  format: string;
  /** Seconds without text before the server closes the stream (1008); ElevenLabs' default is 20. */
  inactivityTimeoutS: number;
}

/** The stream-input URL under `base` (PARLEY_ELEVENLABS_URL, a ws: or wss: origin, optionally with a path). */
export function streamInputUrl(base: string, q: StreamInputQuery): string {
  const url = new URL(`${base.replace(/\/+$/, '')}/v1/text-to-speech/${encodeURIComponent(q.voice)}/stream-input`);
  url.searchParams.set('model_id', q.model);
  url.searchParams.set('output_format', q.format);
  url.searchParams.set('inactivity_timeout', String(q.inactivityTimeoutS));
  return url.toString();
}

/** The HTTP origin of the same API (for `GET /v1/user`): ws → http, wss → https. */
export function httpBaseOf(base: string): string {
  return base.replace(/^ws(s?):/i, 'http$1:').replace(/\/+$/, '');
}

const alignmentSchema = z.object({
  chars: z.array(z.string()),
  charStartTimesMs: z.array(z.number()),
  charDurationsMs: z.array(z.number()).optional(),
});

/** Which characters of the text a chunk of audio speaks, and where each starts in it (ms). */
export type Alignment = z.infer<typeof alignmentSchema>;

/** Any message the server sends: audio (with its alignment), the final one, or an error. */
export const serverMessageSchema = z.looseObject({
  audio: z.string().nullish(),
  isFinal: z.boolean().nullish(),
  alignment: alignmentSchema.nullish(),
  normalizedAlignment: alignmentSchema.nullish(),
  error: z.string().nullish(),
  message: z.string().nullish(),
  code: z.number().nullish(),
});

export type ServerMessage = z.infer<typeof serverMessageSchema>;

const closeNames: Readonly<Record<number, string>> = {
  1000: 'normal closure',
  1006: 'dropped',
  1008: 'policy violation',
  1011: 'server error',
};

/** A close as an operator reads it: `1008 policy violation: Invalid API key`. */
export function describeClose(code: number, reason: string): string {
  const name = closeNames[code];
  return `${code}${name === undefined ? '' : ` ${name}`}${reason === '' ? '' : `: ${reason}`}`;
}
