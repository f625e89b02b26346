import { it } from 'vitest';
import { PocketsphinxStt } from '../../src/providers/pocketsphinx/pocketsphinx-stt.js';
import { humanSpeech } from '../support/human-speech.js';
import { Resampler } from '../../src/audio/resampler.js';
it('asr', async () => {
  const stt = new PocketsphinxStt({ decoders: 1, maxLagMs: 60_000 });
  const c = humanSpeech('vm-rec-busy');
  const r = new Resampler(8000, 16000); const a = r.push(c.samples);
  for (const cap of [8000, undefined]) console.log(cap, await stt.transcribe({ audio: a, sampleRate: 16000, model: 'en-us', language: null, capturedRate: cap }));
  const s = stt.openStream({ sampleRate: 16000, model: 'en-us', language: null, capturedRate: 8000 })!;
  for (let i = 0; i < a.length; i += 512) s.write(a.subarray(i, i + 512));
  console.log('stream', await s.finish());
  await stt.close();
}, 60_000);
