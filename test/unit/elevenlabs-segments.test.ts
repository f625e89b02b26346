import { describe, expect, it } from 'vitest';
import { pcmFormatFor, streamInputUrl } from '../../src/providers/elevenlabs/elevenlabs-protocol.js';
import { SpokenSegments } from '../../src/providers/elevenlabs/spoken-segments.js';

/** Alignment for `text` at 10 ms per character, as ElevenLabs sends it with a chunk. */
const aligned = (text: string) => ({
  chars: [...text],
  charStartTimesMs: [...text].map((_, i) => i * 10),
  charDurationsMs: [...text].map(() => 10),
});
/** 1000 Hz: one sample per ms. */
const pcm = (ms: number) => Int16Array.from({ length: ms }, (_, i) => i);

describe('which segment ElevenLabs audio speaks', () => {
  it('cuts a chunk where the next segment starts, by its alignment, whatever the spacing', () => {
    const s = new SpokenSegments();
    s.add('Sure, ');
    s.flush(); // segment 0: "Sure," (5 letters)
    s.add('we open ');
    s.add('at nine. ');
    s.flush(); // segment 1
    s.add('Bye. ');
    // the server's first chunk speaks "Sure, we" (its own spacing): 80 ms
    const first = s.place(pcm(80), 1000, aligned('Sure,  we'));
    expect(first.map((r) => [r.segment, r.samples.length, r.samples[0]])).toEqual([
      [0, 70, 0],
      [1, 10, 70],
    ]);
    // a chunk inside segment 1, then one that ends it and starts segment 2 at "B" (letter 20)
    expect(s.place(pcm(50), 1000, aligned(' open')).map((r) => r.segment)).toEqual([1]);
    const third = s.place(pcm(120), 1000, aligned(' at nine. Bye.'));
    expect(third.map((r) => [r.segment, r.samples.length])).toEqual([
      [1, 100],
      [2, 20],
    ]);
  });

  it('gives a chunk without alignment to the segment being spoken', () => {
    const s = new SpokenSegments();
    s.add('One. ');
    s.flush();
    expect(s.place(pcm(30), 1000, null)).toEqual([{ segment: 0, samples: pcm(30) }]);
    s.place(pcm(30), 1000, aligned('One.'));
    expect(s.place(pcm(10), 1000, undefined)[0]!.segment).toBe(1);
  });
});

describe('the stream-input request', () => {
  it('asks for PCM at the playout rate, or the next rate above, or the highest', () => {
    expect(pcmFormatFor(8_000)).toEqual({ format: 'pcm_8000', sampleRate: 8_000 });
    expect(pcmFormatFor(16_000)).toEqual({ format: 'pcm_16000', sampleRate: 16_000 });
    expect(pcmFormatFor(22_000)).toEqual({ format: 'pcm_22050', sampleRate: 22_050 });
    expect(pcmFormatFor(48_000)).toEqual({ format: 'pcm_44100', sampleRate: 44_100 });
  });

  it('puts the voice in the path and the model, format and inactivity timeout in the query', () => {
    expect(
      streamInputUrl('wss://api.elevenlabs.io/', {
        voice: 'JBFqnCBsd6RMkjVDRZzb',
        model: 'eleven_flash_v2_5',
        format: 'pcm_16000',
        inactivityTimeoutS: 20,
      }),
    ).toBe(
      'wss://api.elevenlabs.io/v1/text-to-speech/JBFqnCBsd6RMkjVDRZzb/stream-input?model_id=eleven_flash_v2_5&output_format=pcm_16000&inactivity_timeout=20',
    );
  });
});
