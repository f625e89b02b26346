/**
 * tiny-random-whisper: Whisper's architecture at toy size (width 32, 1 encoder and 1 decoder layer,
 * 2 heads, feed-forward 64) with Whisper's real interface: 80 mel bins × 3000 frames in, 1500 encoder
 * positions, 448 decoder positions, 51,865 logits, the multilingual special tokens at their real ids,
 * and the decoder merged with its KV cache as transformers.js loads it (`decoder_model_merged`). The
 * weights are random, so transcripts are gibberish: what is real is the loading and decoding path.
 */
import { GraphBuilder } from '../onnx/onnx-graph.js';
import { Layers } from '../onnx/onnx-layers.js';
import type { ModelFiles } from './model-files.js';
import { whisperIds, whisperLanguages, whisperTokenizer } from './whisper-tokenizer.js';

export const whisperShape = {
  width: 32,
  heads: 2,
  inner: 64,
  mels: 80,
  frames: 3000,
  sourcePositions: 1500,
  targetPositions: 448,
  vocab: 51_865,
  epsilon: 1e-5,
  seed: 20_261_123,
} as const;

const s = whisperShape;
const headDim = s.width / s.heads;

/** An attention block's projections, heads split: q from `x`, k (no bias, as Whisper) and v from `source`. */
function project(l: Layers, x: string, source: string): [string, string, string] {
  return [
    l.splitHeads(l.linear(x, s.width, s.width), s.heads, headDim),
    l.splitHeads(l.linear(source, s.width, s.width, false), s.heads, headDim),
    l.splitHeads(l.linear(source, s.width, s.width), s.heads, headDim),
  ];
}

function attentionOut(l: Layers, attended: string): string {
  return l.linear(l.mergeHeads(attended, s.width), s.width, s.width);
}

function encoder(): Uint8Array {
  const g = new GraphBuilder('tiny-random-whisper encoder');
  const l = new Layers(g, s.seed);
  const features = g.input('input_features', 'float', ['batch_size', s.mels, s.frames]);
  const conv = (x: string, inputs: number, stride: number) =>
    l.gelu(
      g.op('Conv', [x, l.floats([s.width, inputs, 3]), l.floats([s.width])], {
        kernel_shape: { ints: [3] },
        pads: { ints: [1, 1] },
        strides: { ints: [stride] },
      }),
    );
  const convolved = conv(conv(features, s.mels, 1), s.width, 2); // [batch, width, 1500]
  const positions = l.floats([s.sourcePositions, s.width]);
  let h = g.op('Add', [g.op('Transpose', [convolved], { perm: { ints: [0, 2, 1] } }), positions]);
  const normed = l.layerNorm(h, s.width, s.epsilon);
  const [q, k, v] = project(l, normed, normed);
  h = g.op('Add', [h, attentionOut(l, l.attend(q, k, v, headDim, null))]);
  h = g.op('Add', [h, l.feedForward(l.layerNorm(h, s.width, s.epsilon), s.width, s.inner)]);
  const out = l.layerNorm(h, s.width, s.epsilon);
  g.output('last_hidden_state', out, 'float', ['batch_size', s.sourcePositions, s.width]);
  return g.encode();
}

/**
 * The decoder with its cache, one graph for the first step and the next ones: self-attention keys
 * and values are the past ones with this step's appended (`present.0.decoder.*`); cross-attention
 * keys and values are computed from `encoder_hidden_states` at every step, so the encoder-past inputs
 * and `use_cache_branch` are accepted and not read.
 */
function decoder(): Uint8Array {
  const g = new GraphBuilder('tiny-random-whisper decoder');
  const l = new Layers(g, s.seed + 1);
  const cache = ['batch_size', s.heads, 'past_decoder_sequence_length', headDim];
  const encoderCache = ['batch_size', s.heads, 'encoder_sequence_length_out', headDim];
  const ids = g.input('input_ids', 'int64', ['batch_size', 'decoder_sequence_length']);
  const encoded = g.input('encoder_hidden_states', 'float', ['batch_size', 'encoder_sequence_length', s.width]);
  const pastKey = g.input('past_key_values.0.decoder.key', 'float', cache);
  const pastValue = g.input('past_key_values.0.decoder.value', 'float', cache);
  g.input('past_key_values.0.encoder.key', 'float', encoderCache);
  g.input('past_key_values.0.encoder.value', 'float', encoderCache);
  g.input('use_cache_branch', 'bool', [1]);

  const past = l.dim(pastKey, 2);
  const total = g.op('Add', [past, l.dim(ids, 1)]);
  const queryPositions = g.op('Range', [past, total, g.int64(1)]);
  const positions = l.floats([s.targetPositions, s.width]);
  let h = g.op('Add', [
    l.embedding(ids, s.vocab, s.width),
    g.op('Gather', [positions, queryPositions], { axis: { i: 0 } }),
  ]);

  // Causal: query at position p sees keys at positions ≤ p. [queries, keys], broadcast over batch and heads.
  const keyPositions = g.op('Range', [g.int64(0), total, g.int64(1)]);
  const future = g.op('Greater', [
    g.op('Unsqueeze', [keyPositions, g.int64s([1], [0])]),
    g.op('Unsqueeze', [queryPositions, g.int64s([1], [1])]),
  ]);
  const causal = g.op('Where', [future, g.scalar(-1e9), g.scalar(0)]);

  const normed = l.layerNorm(h, s.width, s.epsilon);
  const [q, newKey, newValue] = project(l, normed, normed);
  const key = g.op('Concat', [pastKey, newKey], { axis: { i: 2 } });
  const value = g.op('Concat', [pastValue, newValue], { axis: { i: 2 } });
  h = g.op('Add', [h, attentionOut(l, l.attend(q, key, value, headDim, causal))]);

  const [crossQ, crossKey, crossValue] = project(l, l.layerNorm(h, s.width, s.epsilon), encoded);
  h = g.op('Add', [h, attentionOut(l, l.attend(crossQ, crossKey, crossValue, headDim, null))]);
  h = g.op('Add', [h, l.feedForward(l.layerNorm(h, s.width, s.epsilon), s.width, s.inner)]);
  const logits = l.linear(l.layerNorm(h, s.width, s.epsilon), s.width, s.vocab, false);

  const grown = ['batch_size', s.heads, 'past_decoder_sequence_length + 1', headDim];
  g.output('logits', logits, 'float', ['batch_size', 'decoder_sequence_length', s.vocab]);
  g.output('present.0.decoder.key', key, 'float', grown);
  g.output('present.0.decoder.value', value, 'float', grown);
  g.output('present.0.encoder.key', crossKey, 'float', encoderCache);
  g.output('present.0.encoder.value', crossValue, 'float', encoderCache);
  return g.encode();
}

export function whisper(): ModelFiles {
  const ids = whisperIds;
  return {
    'config.json': {
      _name_or_path: 'tiny-random-whisper (random weights: scripts/make-test-models.ts)',
      architectures: ['WhisperForConditionalGeneration'],
      model_type: 'whisper',
      activation_function: 'gelu',
      d_model: s.width,
      encoder_layers: 1,
      decoder_layers: 1,
      num_hidden_layers: 1,
      encoder_attention_heads: s.heads,
      decoder_attention_heads: s.heads,
      encoder_ffn_dim: s.inner,
      decoder_ffn_dim: s.inner,
      num_mel_bins: s.mels,
      max_source_positions: s.sourcePositions,
      max_target_positions: s.targetPositions,
      vocab_size: s.vocab,
      scale_embedding: false,
      is_encoder_decoder: true,
      use_cache: true,
      bos_token_id: ids.endOfText,
      eos_token_id: ids.endOfText,
      pad_token_id: ids.endOfText,
      decoder_start_token_id: ids.startOfTranscript,
      begin_suppress_tokens: [ids.space, ids.endOfText],
    },
    'generation_config.json': {
      bos_token_id: ids.endOfText,
      eos_token_id: ids.endOfText,
      pad_token_id: ids.endOfText,
      decoder_start_token_id: ids.startOfTranscript,
      begin_suppress_tokens: [ids.space, ids.endOfText],
      suppress_tokens: [ids.translate, ids.transcribe, ids.startOfLm, ids.startOfPrev, ids.noCaptions],
      is_multilingual: true,
      lang_to_id: Object.fromEntries(whisperLanguages.map((code, i) => [`<|${code}|>`, ids.firstLanguage + i])),
      task_to_id: { translate: ids.translate, transcribe: ids.transcribe },
      no_timestamps_token_id: ids.noTimestamps,
      max_initial_timestamp_index: 1,
      max_length: s.targetPositions,
      return_timestamps: false,
    },
    'preprocessor_config.json': {
      feature_extractor_type: 'WhisperFeatureExtractor',
      processor_class: 'WhisperProcessor',
      chunk_length: 30,
      feature_size: s.mels,
      hop_length: 160,
      n_fft: 400,
      n_samples: 480_000,
      nb_max_frames: s.frames,
      padding_side: 'right',
      padding_value: 0,
      return_attention_mask: false,
      sampling_rate: 16_000,
    },
    ...whisperTokenizer(),
    'onnx/encoder_model_quantized.onnx': encoder(),
    'onnx/decoder_model_merged_quantized.onnx': decoder(),
  };
}
