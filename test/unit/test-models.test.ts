import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { InferenceSession, Tensor } from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { testModels } from '../../scripts/make-test-models.js';
import { generatedModelsDir } from '../support/test-models.js';

/** The generated test models (scripts/make-test-models.ts) have the interfaces transformers.js loads. */

async function session(model: string, file: string): Promise<InferenceSession> {
  return InferenceSession.create(join(generatedModelsDir, model, 'onnx', file));
}

function io(s: InferenceSession) {
  return { inputs: [...s.inputNames], outputs: [...s.outputNames] };
}

const ids = (rows: number[][]) =>
  new Tensor('int64', BigInt64Array.from(rows.flat().map(BigInt)), [rows.length, rows[0]!.length]);

describe('generated test models', () => {
  it('are the same bytes on every run (seeded weights)', async () => {
    const [a, b] = [await testModels(), await testModels()];
    expect(Object.keys(a)).toEqual(['minilm-l6-random', 'tiny-random-whisper', 'tiny-random-vits-tts']);
    for (const [name, files] of Object.entries(a)) {
      for (const [path, content] of Object.entries(files)) {
        const other = b[name]![path]!;
        if (content instanceof Uint8Array) expect(Buffer.compare(content, other as Uint8Array)).toBe(0);
        else expect(other).toEqual(content);
      }
    }
  });

  it('minilm-l6-random: BERT inputs, 384-wide states, padded keys masked', async () => {
    const s = await session('minilm-l6-random', 'model_quantized.onnx');
    expect(io(s)).toEqual({
      inputs: ['input_ids', 'attention_mask', 'token_type_ids'],
      outputs: ['last_hidden_state'],
    });
    const alone = await s.run({
      input_ids: ids([[101, 7592, 102]]),
      attention_mask: ids([[1, 1, 1]]),
      token_type_ids: ids([[0, 0, 0]]),
    });
    const padded = await s.run({
      input_ids: ids([[101, 7592, 102, 0, 0]]),
      attention_mask: ids([[1, 1, 1, 0, 0]]),
      token_type_ids: ids([[0, 0, 0, 0, 0]]),
    });
    expect(alone['last_hidden_state']!.dims).toEqual([1, 3, 384]);
    expect(padded['last_hidden_state']!.dims).toEqual([1, 5, 384]);
    const a = alone['last_hidden_state']!.data as Float32Array;
    const p = (padded['last_hidden_state']!.data as Float32Array).slice(0, a.length);
    const diff = Math.max(...a.map((x, i) => Math.abs(x - p[i]!)));
    expect(diff).toBeLessThan(0.05); // only the activations' dynamic int8 range differs
  });

  it('minilm-l6-random: the tokenizer is built from the committed BERT vocabulary', async () => {
    const tokenizer = JSON.parse(
      await readFile(join(generatedModelsDir, 'minilm-l6-random', 'tokenizer.json'), 'utf8'),
    );
    expect(Object.keys(tokenizer.model.vocab)).toHaveLength(30_522);
    expect(tokenizer.model.vocab).toMatchObject({ '[PAD]': 0, '[UNK]': 100, '[CLS]': 101, '[SEP]': 102, hello: 7592 });
  });

  it('tiny-random-whisper: encoder and cached decoder as transformers.js runs them', async () => {
    const encoder = await session('tiny-random-whisper', 'encoder_model_quantized.onnx');
    const decoder = await session('tiny-random-whisper', 'decoder_model_merged_quantized.onnx');
    expect(io(encoder)).toEqual({ inputs: ['input_features'], outputs: ['last_hidden_state'] });
    const cache = ['decoder.key', 'decoder.value', 'encoder.key', 'encoder.value'];
    expect(io(decoder)).toEqual({
      inputs: ['input_ids', 'encoder_hidden_states', ...cache.map((c) => `past_key_values.0.${c}`), 'use_cache_branch'],
      outputs: ['logits', ...cache.map((c) => `present.0.${c}`)],
    });
    const encoded = (
      await encoder.run({ input_features: new Tensor('float32', new Float32Array(80 * 3000), [1, 80, 3000]) })
    )['last_hidden_state']!;
    expect(encoded.dims).toEqual([1, 1500, 32]);
    const empty = () => new Tensor('float32', new Float32Array(0), [1, 2, 0, 16]);
    const step = (tokens: number[], past: InferenceSession.ReturnType) =>
      decoder.run({
        input_ids: ids([tokens]),
        encoder_hidden_states: encoded,
        'past_key_values.0.decoder.key': past['present.0.decoder.key'] ?? empty(),
        'past_key_values.0.decoder.value': past['present.0.decoder.value'] ?? empty(),
        'past_key_values.0.encoder.key': past['present.0.encoder.key'] ?? empty(),
        'past_key_values.0.encoder.value': past['present.0.encoder.value'] ?? empty(),
        use_cache_branch: new Tensor('bool', [Object.keys(past).length > 0], [1]),
      });
    const first = await step([50258, 50259, 50359, 50363], {});
    expect(first['logits']!.dims).toEqual([1, 4, 51_865]);
    expect(first['present.0.decoder.key']!.dims).toEqual([1, 2, 4, 16]);
    const next = await step([400], first);
    expect(next['present.0.decoder.key']!.dims).toEqual([1, 2, 5, 16]);
    // The cache gives what a full pass over the five tokens gives for the last one (up to the int8
    // activations' range, whose rounding differs between CPUs' kernels), and not what the last
    // token gives without its past: compared by direction (1 - cosine), which that rounding barely
    // moves (0.010 against 0.165 on an AMD EPYC, where the largest single logit differs 0.10 against 0.25).
    const full = await step([50258, 50259, 50359, 50363, 400], {});
    const alone = await step([400], {});
    const last = (r: InferenceSession.ReturnType, at: number) =>
      (r['logits']!.data as Float32Array).slice(at * 51_865, (at + 1) * 51_865);
    const distance = (a: Float32Array, b: Float32Array) => {
      let dot = 0;
      let aa = 0;
      let bb = 0;
      a.forEach((x, i) => ((dot += x * b[i]!), (aa += x * x), (bb += b[i]! * b[i]!)));
      return 1 - dot / Math.sqrt(aa * bb);
    };
    const expected = last(full, 4);
    expect(distance(last(next, 0), expected)).toBeLessThan(distance(last(alone, 0), expected) / 5);
  });

  it('tiny-random-vits-tts: symbols in, 256 samples each out, padding silent', async () => {
    const s = await session('tiny-random-vits-tts', 'model_quantized.onnx');
    expect(io(s)).toEqual({ inputs: ['input_ids', 'attention_mask'], outputs: ['waveform'] });
    const out = await s.run({ input_ids: ids([[0, 9, 0, 6, 0]]), attention_mask: ids([[1, 1, 1, 0, 0]]) });
    expect(out['waveform']!.dims).toEqual([1, 5 * 256]);
    const samples = out['waveform']!.data as Float32Array;
    expect(samples.slice(3 * 256).every((x) => x === 0)).toBe(true);
    expect(samples.slice(0, 3 * 256).some((x) => x !== 0)).toBe(true);
  });
});
