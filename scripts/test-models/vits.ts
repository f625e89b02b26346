/**
 * tiny-random-vits-tts: a text-to-speech model with VITS's interface as transformers.js runs it
 * (`input_ids` and `attention_mask` in, `waveform` out, 16 kHz in config.json, a character tokenizer
 * with blanks between symbols), not VITS's network: each input symbol becomes 256 samples of noise
 * made by random weights (embedding → linear → tanh). What is real is the loading path.
 */
import { GraphBuilder } from '../onnx/onnx-graph.js';
import { Layers } from '../onnx/onnx-layers.js';
import type { ModelFiles } from './model-files.js';

export const vitsShape = { width: 16, samplesPerSymbol: 256, sampleRate: 16_000, seed: 20_261_124 } as const;

/** `_` is the blank the tokenizer puts between symbols (and the padding); `<unk>` is last. */
const symbols = ['_', ' ', ...'abcdefghijklmnopqrstuvwxyz', "'", '-', '<unk>'];

function graph(): Uint8Array {
  const s = vitsShape;
  const g = new GraphBuilder('tiny-random-vits-tts');
  const l = new Layers(g, s.seed, 0.5);
  const axes = ['batch_size', 'sequence_length'];
  const ids = g.input('input_ids', 'int64', axes);
  const mask = g.input('attention_mask', 'int64', axes);
  const frames = g.op('Tanh', [l.linear(l.embedding(ids, symbols.length, s.width), s.width, s.samplesPerSymbol)]);
  const keep = g.op('Unsqueeze', [g.op('Cast', [mask], { to: { i: 1 } }), g.int64s([1], [2])]);
  const waveform = g.op('Reshape', [g.op('Mul', [frames, keep]), g.int64s([2], [0, -1])]);
  g.output('waveform', waveform, 'float', ['batch_size', 'num_samples']);
  return g.encode();
}

export function vits(): ModelFiles {
  const s = vitsShape;
  const vocab = Object.fromEntries(symbols.map((c, i) => [c, i]));
  const allowed = symbols.slice(0, -1).join('').replace('-', '\\-');
  return {
    'config.json': {
      _name_or_path: 'tiny-random-vits-tts (random weights: scripts/make-test-models.ts)',
      architectures: ['VitsModel'],
      model_type: 'vits',
      hidden_size: s.width,
      vocab_size: symbols.length,
      sampling_rate: s.sampleRate,
      num_speakers: 1,
      pad_token_id: null,
    },
    'tokenizer.json': {
      version: '1.0',
      truncation: null,
      padding: null,
      added_tokens: [
        {
          id: symbols.length - 1,
          content: '<unk>',
          single_word: false,
          lstrip: false,
          rstrip: false,
          normalized: false,
          special: true,
        },
      ],
      // Lower case, drop what has no symbol, then a blank before every symbol and at the end.
      normalizer: {
        type: 'Sequence',
        normalizers: [
          { type: 'Lowercase' },
          { type: 'Replace', pattern: { Regex: `[^${allowed}]` }, content: '' },
          { type: 'Strip', strip_left: true, strip_right: true },
          { type: 'Replace', pattern: { Regex: '(?=.)|(?<!^)$' }, content: '_' },
        ],
      },
      pre_tokenizer: { type: 'Split', pattern: { String: '' }, behavior: 'Isolated', invert: false },
      post_processor: null,
      decoder: null,
      model: { vocab },
    },
    'tokenizer_config.json': {
      tokenizer_class: 'VitsTokenizer',
      add_blank: true,
      normalize: true,
      phonemize: false,
      is_uroman: false,
      language: 'eng',
      pad_token: '_',
      unk_token: '<unk>',
      clean_up_tokenization_spaces: true,
    },
    'onnx/model_quantized.onnx': graph(),
  };
}
