/**
 * Transformer layers for the random-weight test models, in the int8 form ONNX Runtime's dynamic
 * quantization writes (what transformers.js loads as `q8`): weights as int8 with a float scale per
 * output channel, activations quantized on the fly (DynamicQuantizeLinear → MatMulInteger), embedding
 * tables as int8 rows dequantized after the Gather. Weights come from a seeded PRNG.
 */
import { uniform } from '../seeded-random.js';
import type { GraphBuilder } from './onnx-graph.js';

/** Uniform int8 weights in [-127, 127] whose float value has standard deviation `std`. */
function int8Weights(next: () => number, count: number): Int8Array {
  const w = new Int8Array(count);
  for (let i = 0; i < count; i++) w[i] = Math.floor(next() * 255) - 127;
  return w;
}

/** std of a uniform int8 in [-127, 127] is 127/√3 steps: the scale that gives `std`. */
const stepFor = (std: number) => (std * Math.sqrt(3)) / 127;

export class Layers {
  private readonly next: () => number;

  constructor(
    readonly g: GraphBuilder,
    seed: number,
    /** Standard deviation of the random weights (BERT's and Whisper's initializer range). */
    readonly std = 0.02,
  ) {
    this.next = uniform(seed);
  }

  private randomFloats(count: number, std: number): Float32Array {
    return Float32Array.from({ length: count }, () => (this.next() * 2 - 1) * std * Math.sqrt(3));
  }

  /** `x · W + b` for x [..., inputs]: W int8 per output channel, x quantized per call. */
  linear(x: string, inputs: number, outputs: number, bias = true): string {
    const g = this.g;
    const w = g.int8s([inputs, outputs], int8Weights(this.next, inputs * outputs));
    const [q, scale, zero] = g.ops('DynamicQuantizeLinear', [x], {}, 3) as [string, string, string];
    const product = g.op('Cast', [g.op('MatMulInteger', [q, w, zero])], { to: { i: 1 } });
    const wScale = g.floats([outputs], new Float32Array(outputs).fill(stepFor(this.std)));
    const y = g.op('Mul', [product, g.op('Mul', [scale, wScale])]);
    return bias ? g.op('Add', [y, g.floats([outputs], this.randomFloats(outputs, this.std))]) : y;
  }

  /** Rows of an int8 table [rows, width] picked by `ids`, as floats. */
  embedding(ids: string, rows: number, width: number): string {
    const g = this.g;
    const table = g.int8s([rows, width], int8Weights(this.next, rows * width));
    const picked = g.op('Gather', [table, ids], { axis: { i: 0 } });
    return g.op('DequantizeLinear', [picked, g.scalar(stepFor(this.std)), g.int8s([], Int8Array.of(0))]);
  }

  /** A float tensor of random values (positions, convolutions: too small to quantize). */
  floats(dims: readonly number[]): string {
    return this.g.floats(
      dims,
      this.randomFloats(
        dims.reduce((a, b) => a * b, 1),
        this.std,
      ),
    );
  }

  layerNorm(x: string, width: number, epsilon: number): string {
    const g = this.g;
    const gamma = g.floats([width], new Float32Array(width).fill(1));
    const beta = g.floats([width], new Float32Array(width));
    return g.op('LayerNormalization', [x, gamma, beta], { axis: { i: -1 }, epsilon: { f: epsilon } });
  }

  /** GELU as BERT and Whisper export it: x · ½ · (1 + erf(x / √2)). */
  gelu(x: string): string {
    const g = this.g;
    const erf = g.op('Erf', [g.op('Div', [x, g.scalar(Math.SQRT2)])]);
    return g.op('Mul', [g.op('Mul', [x, g.scalar(0.5)]), g.op('Add', [erf, g.scalar(1)])]);
  }

  /** [batch, seq, heads·dim] → [batch, heads, seq, dim]. */
  splitHeads(x: string, heads: number, dim: number): string {
    const g = this.g;
    return g.op('Transpose', [g.op('Reshape', [x, g.int64s([4], [0, 0, heads, dim])])], {
      perm: { ints: [0, 2, 1, 3] },
    });
  }

  /** [batch, heads, seq, dim] → [batch, seq, heads·dim]. */
  mergeHeads(x: string, width: number): string {
    const g = this.g;
    return g.op('Reshape', [g.op('Transpose', [x], { perm: { ints: [0, 2, 1, 3] } }), g.int64s([3], [0, 0, width])]);
  }

  /**
   * Scaled dot-product attention of q [b, h, s, d] over k, v [b, h, t, d]; `bias` (added to the
   * scores, broadcast to [b, h, s, t]) masks keys with a large negative number.
   */
  attend(q: string, k: string, v: string, dim: number, bias: string | null): string {
    const g = this.g;
    const keys = g.op('Transpose', [k], { perm: { ints: [0, 1, 3, 2] } });
    const scores = g.op('Mul', [g.op('MatMul', [q, keys]), g.scalar(1 / Math.sqrt(dim))]);
    const weights = g.op('Softmax', [bias === null ? scores : g.op('Add', [scores, bias])], { axis: { i: -1 } });
    return g.op('MatMul', [weights, v]);
  }

  /** Two linear layers with GELU between: the feed-forward block. */
  feedForward(x: string, width: number, inner: number): string {
    return this.linear(this.gelu(this.linear(x, width, inner)), inner, width);
  }

  /** Dimension `axis` of x's shape, as a scalar int64. */
  dim(x: string, axis: number): string {
    const g = this.g;
    return g.op('Gather', [g.op('Shape', [x]), g.int64(axis)], { axis: { i: 0 } });
  }
}
