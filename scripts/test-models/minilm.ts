/**
 * minilm-l6-random: a BERT encoder with all-MiniLM-L6-v2's architecture (6 layers, width 384, 12
 * heads, feed-forward 1536, 512 positions, 2 token types, no pooler) and its real WordPiece vocabulary
 * (test/fixtures/models/bert-base-uncased-vocab.txt), with random int8 weights. Embeddings are noise;
 * the tokenizer, the ONNX inputs and output, the int8 graph and the compute per token are the real
 * model's, so chunking counts real tokens and the RAG bench measures a real cost.
 */
import { GraphBuilder } from '../onnx/onnx-graph.js';
import { Layers } from '../onnx/onnx-layers.js';
import type { ModelFiles } from './model-files.js';

export const minilmShape = {
  layers: 6,
  width: 384,
  heads: 12,
  inner: 1536,
  positions: 512,
  types: 2,
  epsilon: 1e-12,
  seed: 20_261_122,
} as const;

function graph(vocabSize: number): Uint8Array {
  const s = minilmShape;
  const g = new GraphBuilder('minilm-l6-random');
  const l = new Layers(g, s.seed);
  const axes = ['batch_size', 'sequence_length'];
  const ids = g.input('input_ids', 'int64', axes);
  const mask = g.input('attention_mask', 'int64', axes);
  const types = g.input('token_type_ids', 'int64', axes);

  const positions = g.op('Range', [g.int64(0), l.dim(ids, 1), g.int64(1)]);
  const summed = g.op('Add', [
    g.op('Add', [l.embedding(ids, vocabSize, s.width), l.embedding(positions, s.positions, s.width)]),
    l.embedding(types, s.types, s.width),
  ]);
  let h = l.layerNorm(summed, s.width, s.epsilon);

  // Padding keys get -10000 before the softmax: [batch, 1, 1, keys].
  const keep = g.op('Cast', [mask], { to: { i: 1 } });
  const bias = g.op('Unsqueeze', [
    g.op('Mul', [g.op('Sub', [g.scalar(1), keep]), g.scalar(-10_000)]),
    g.int64s([2], [1, 2]),
  ]);
  const dim = s.width / s.heads;
  for (let i = 0; i < s.layers; i++) {
    const [q, k, v] = [0, 1, 2].map(() => l.splitHeads(l.linear(h, s.width, s.width), s.heads, dim)) as [
      string,
      string,
      string,
    ];
    const attended = l.linear(l.mergeHeads(l.attend(q, k, v, dim, bias), s.width), s.width, s.width);
    h = l.layerNorm(g.op('Add', [h, attended]), s.width, s.epsilon);
    h = l.layerNorm(g.op('Add', [h, l.feedForward(h, s.width, s.inner)]), s.width, s.epsilon);
  }
  g.output('last_hidden_state', h, 'float', [...axes, s.width]);
  return g.encode();
}

/** The folder's files: config, the tokenizer built from `vocab` (one token a line), the q8 ONNX model. */
export function minilm(vocab: readonly string[]): ModelFiles {
  const s = minilmShape;
  const special = (token: string) => ({
    id: vocab.indexOf(token),
    content: token,
    single_word: false,
    lstrip: false,
    rstrip: false,
    normalized: false,
    special: true,
  });
  const tokenizer = {
    version: '1.0',
    truncation: { direction: 'Right', max_length: 128, strategy: 'LongestFirst', stride: 0 },
    padding: {
      strategy: { Fixed: 128 },
      direction: 'Right',
      pad_to_multiple_of: null,
      pad_id: 0,
      pad_type_id: 0,
      pad_token: '[PAD]',
    },
    added_tokens: ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'].map(special),
    normalizer: {
      type: 'BertNormalizer',
      clean_text: true,
      handle_chinese_chars: true,
      strip_accents: null,
      lowercase: true,
    },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [
        { SpecialToken: { id: '[CLS]', type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: '[SEP]', type_id: 0 } },
      ],
      pair: [
        { SpecialToken: { id: '[CLS]', type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: '[SEP]', type_id: 0 } },
        { Sequence: { id: 'B', type_id: 1 } },
        { SpecialToken: { id: '[SEP]', type_id: 1 } },
      ],
      special_tokens: Object.fromEntries(
        ['[CLS]', '[SEP]'].map((t) => [t, { id: t, ids: [vocab.indexOf(t)], tokens: [t] }]),
      ),
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: {
      type: 'WordPiece',
      unk_token: '[UNK]',
      continuing_subword_prefix: '##',
      max_input_chars_per_word: 100,
      vocab: Object.fromEntries(vocab.map((token, id) => [token, id])),
    },
  };
  return {
    'config.json': {
      _name_or_path: 'minilm-l6-random (random weights: scripts/make-test-models.ts)',
      architectures: ['BertModel'],
      model_type: 'bert',
      hidden_act: 'gelu',
      hidden_size: s.width,
      intermediate_size: s.inner,
      num_attention_heads: s.heads,
      num_hidden_layers: s.layers,
      max_position_embeddings: s.positions,
      type_vocab_size: s.types,
      vocab_size: vocab.length,
      layer_norm_eps: s.epsilon,
      pad_token_id: 0,
      position_embedding_type: 'absolute',
    },
    'tokenizer.json': tokenizer,
    'tokenizer_config.json': {
      tokenizer_class: 'BertTokenizer',
      do_lower_case: true,
      do_basic_tokenize: true,
      tokenize_chinese_chars: true,
      strip_accents: null,
      model_max_length: 512,
      clean_up_tokenization_spaces: true,
      cls_token: '[CLS]',
      sep_token: '[SEP]',
      pad_token: '[PAD]',
      mask_token: '[MASK]',
      unk_token: '[UNK]',
    },
    'onnx/model_quantized.onnx': graph(vocab.length),
  };
}
