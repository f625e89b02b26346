/**
 * Writes a tiny random-weight GGUF LLM for the local-llama tests and bench (no download, no Python):
 * architecture `qwen2` (Qwen2.5's: RoPE, SwiGLU, RMSNorm, QKV biases, GQA) at toy size, a byte-level
 * BPE tokenizer (`gpt2` model, `qwen2` pre-tokenizer) with Qwen's special tokens, and Qwen2.5's own
 * chat template, so node-llama-cpp takes the same path as for the real Qwen2.5-0.5B-Instruct file:
 * the Qwen chat wrapper with `<tool_call>` function calling. Weights come from a seeded PRNG, so the
 * file is byte-for-byte reproducible; what it says is gibberish. See scripts/TINY-GGUF.md.
 *
 *   node --import tsx scripts/make-tiny-gguf.ts <out.gguf> [--tool-eager]
 *
 * The special tokens get a large negative logit, so an answer never ends early: it runs to `maxTokens`.
 * `--tool-eager` plants four transitions in the otherwise random weights (end of prompt → `<tool_call>`
 * → `\n{"name": "`, and `</tool_call>` → `<|im_end|>` → `\n`), so the model starts a function call at
 * once: node-llama-cpp's grammar then forces a valid name and arguments. Tests use it to drive a real
 * function call through the model.
 */
import { writeFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { byteAlphabet } from './byte-alphabet.js';
import { encodeGguf, type GgufTensor, type GgufValue } from './gguf-writer.js';
import { qwen25ChatTemplate } from './qwen-chat-template.js';
import { gaussian } from './seeded-random.js';

export type TinyGgufVariant = 'random' | 'tool-eager';

export const tinyGgufShape = {
  layers: 2,
  embedding: 64,
  heads: 4,
  kvHeads: 2,
  feedForward: 128,
  contextLength: 4096,
  seed: 20_260_501,
} as const;

/** Token types of llama.cpp's vocabulary. */
const tokenType = { normal: 1, control: 3, userDefined: 4 } as const;

/** A few common English merges, so words become multi-byte tokens as they do in a real vocabulary. */
const merges = [
  'Ġ t', 'Ġ a', 'h e', 'i n', 'r e', 'o n', 'Ġt he', 'e r', 'Ġ s', 'a t', 'Ġ w', 'Ġ o', 'e n', 'Ġ c', 'i t',
  'i s', 'a n', 'o r', 'e s', 'Ġ b', 'e d', 'Ġ f', 'in g', 'Ġ p', 'o u', 'Ġa n', 'a l', 'a r', 'Ġt o', 'Ġ m',
  'Ġo f', 'Ġ in', 'Ġ d', 'Ġ h', 'Ġan d', 'l e', 'Ġ y', 'Ġy ou', 'l l', 'Ġ he', 'Ġ l', 'Ġ n', 'Ġ g', 'Ġ r',
]; // prettier-ignore

/** The text node-llama-cpp's Qwen wrapper expects right after `<tool_call>`, as one (unmergeable) token. */
const callOpening = 'Ċ{"name":Ġ"';

const specials = ['<|endoftext|>', '<|im_start|>', '<|im_end|>'] as const;
const userDefined = ['<tool_call>', '</tool_call>'] as const;

interface Vocabulary {
  tokens: string[];
  types: number[];
  id(token: string): number;
}

function vocabulary(): Vocabulary {
  const tokens = [...byteAlphabet(), ...merges.map((m) => m.replace(' ', '')), callOpening];
  const types: number[] = tokens.map(() => tokenType.normal);
  for (const t of specials) {
    tokens.push(t);
    types.push(tokenType.control);
  }
  for (const t of userDefined) {
    tokens.push(t);
    types.push(tokenType.userDefined);
  }
  const index = new Map(tokens.map((t, i) => [t, i]));
  if (index.size !== tokens.length) throw new Error('duplicate token in the tiny vocabulary');
  return {
    tokens,
    types,
    id(token) {
      const id = index.get(token);
      if (id === undefined) throw new Error(`no token ${token}`);
      return id;
    },
  };
}

/**
 * Dimensions of the residual stream no layer writes to. 0–3 carry the tool-eager variant's planted
 * transitions; 4 is a constant through which the special tokens get a large negative logit, so the
 * model never ends an answer or starts a call by itself: answers always run to `maxTokens`.
 */
const signalDims = 5;
const biasDim = 4;
const bias = 4;
const specialPenalty = -8;
/** Planted embedding and output values (tool-eager only): far above the random logits' spread. */
const plantedEmbedding = 8;
const plantedOutput = 8;

export function tinyGguf(variant: TinyGgufVariant = 'random'): Buffer {
  const s = tinyGgufShape;
  const vocab = vocabulary();
  const n = vocab.tokens.length;
  const headDim = s.embedding / s.heads;
  const kv = headDim * s.kvHeads;
  const normal = gaussian(s.seed);
  const random = (count: number, std: number) => Float32Array.from({ length: count }, () => normal() * std);
  const ones = (count: number) => new Float32Array(count).fill(1);
  /** A weight y = W x with `inputs` → `outputs`, rows listed in `silent` left zero. */
  const matrix = (inputs: number, outputs: number, silent = 0): Float32Array => {
    const w = random(inputs * outputs, 1 / Math.sqrt(inputs));
    w.fill(0, 0, silent * inputs);
    return w;
  };

  const embedding = random(n * s.embedding, 1);
  const output = random(n * s.embedding, 1 / Math.sqrt(s.embedding));
  for (let t = 0; t < n; t++)
    for (let d = 0; d < signalDims; d++) {
      embedding[t * s.embedding + d] = d === biasDim ? bias : 0;
      output[t * s.embedding + d] = 0;
    }
  for (const t of [...specials, ...userDefined]) output[vocab.id(t) * s.embedding + biasDim] = specialPenalty;
  if (variant === 'tool-eager') {
    const chain: [string, string][] = [
      ['Ċ', '<tool_call>'],
      ['<tool_call>', callOpening],
      ['</tool_call>', '<|im_end|>'],
      ['<|im_end|>', 'Ċ'],
    ];
    chain.forEach(([from, to], d) => {
      embedding[vocab.id(from) * s.embedding + d] = plantedEmbedding;
      output[vocab.id(to) * s.embedding + d] = plantedOutput;
    });
  }

  const tensors: GgufTensor[] = [{ name: 'token_embd.weight', dims: [s.embedding, n], data: embedding }];
  for (let i = 0; i < s.layers; i++) {
    const blk = (name: string, dims: number[], data: Float32Array) =>
      tensors.push({ name: `blk.${i}.${name}`, dims, data });
    blk('attn_norm.weight', [s.embedding], ones(s.embedding));
    blk('attn_q.weight', [s.embedding, s.embedding], matrix(s.embedding, s.embedding));
    blk('attn_q.bias', [s.embedding], random(s.embedding, 0.02));
    blk('attn_k.weight', [s.embedding, kv], matrix(s.embedding, kv));
    blk('attn_k.bias', [kv], random(kv, 0.02));
    blk('attn_v.weight', [s.embedding, kv], matrix(s.embedding, kv));
    blk('attn_v.bias', [kv], random(kv, 0.02));
    blk('attn_output.weight', [s.embedding, s.embedding], matrix(s.embedding, s.embedding, signalDims));
    blk('ffn_norm.weight', [s.embedding], ones(s.embedding));
    blk('ffn_gate.weight', [s.embedding, s.feedForward], matrix(s.embedding, s.feedForward));
    blk('ffn_up.weight', [s.embedding, s.feedForward], matrix(s.embedding, s.feedForward));
    blk('ffn_down.weight', [s.feedForward, s.embedding], matrix(s.feedForward, s.embedding, signalDims));
  }
  tensors.push({ name: 'output_norm.weight', dims: [s.embedding], data: ones(s.embedding) });
  tensors.push({ name: 'output.weight', dims: [s.embedding, n], data: output });

  const u32 = (value: number): GgufValue => ({ type: 'u32', value });
  const metadata = new Map<string, GgufValue>([
    ['general.architecture', { type: 'string', value: 'qwen2' }],
    ['general.name', { type: 'string', value: `tiny-random-qwen2${variant === 'tool-eager' ? '-tool-eager' : ''}` }],
    ['general.file_type', u32(0)],
    ['qwen2.context_length', u32(s.contextLength)],
    ['qwen2.embedding_length', u32(s.embedding)],
    ['qwen2.block_count', u32(s.layers)],
    ['qwen2.feed_forward_length', u32(s.feedForward)],
    ['qwen2.attention.head_count', u32(s.heads)],
    ['qwen2.attention.head_count_kv', u32(s.kvHeads)],
    ['qwen2.attention.layer_norm_rms_epsilon', { type: 'f32', value: 1e-6 }],
    ['qwen2.rope.freq_base', { type: 'f32', value: 1_000_000 }],
    ['tokenizer.ggml.model', { type: 'string', value: 'gpt2' }],
    ['tokenizer.ggml.pre', { type: 'string', value: 'qwen2' }],
    ['tokenizer.ggml.tokens', { type: 'array', of: 'string', value: vocab.tokens }],
    ['tokenizer.ggml.token_type', { type: 'array', of: 'i32', value: vocab.types }],
    ['tokenizer.ggml.merges', { type: 'array', of: 'string', value: merges }],
    ['tokenizer.ggml.eos_token_id', u32(vocab.id('<|im_end|>'))],
    ['tokenizer.ggml.padding_token_id', u32(vocab.id('<|endoftext|>'))],
    ['tokenizer.ggml.bos_token_id', u32(vocab.id('<|endoftext|>'))],
    ['tokenizer.ggml.add_bos_token', { type: 'bool', value: false }],
    ['tokenizer.chat_template', { type: 'string', value: qwen25ChatTemplate }],
  ]);
  return encodeGguf(metadata, tensors);
}

export async function writeTinyGguf(path: string, variant: TinyGgufVariant = 'random'): Promise<void> {
  await writeFile(path, tinyGguf(variant));
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const out = args.find((a) => !a.startsWith('--'));
  if (out === undefined) {
    console.error('usage: node --import tsx scripts/make-tiny-gguf.ts <out.gguf> [--tool-eager]');
    process.exitCode = 2;
  } else {
    await writeTinyGguf(out, args.includes('--tool-eager') ? 'tool-eager' : 'random');
    console.log(`wrote ${out}`);
  }
}
