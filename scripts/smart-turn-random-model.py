#!/usr/bin/python3
"""
A random-weight stand-in for Pipecat's Smart Turn v3 ONNX model (pipecat-ai/smart-turn-v3), with
the same input and output: `input_features` float32 [batch, 80, 800] (Whisper log-mel, 8 s) →
`logits` float32 [batch, 1] (already a sigmoid probability, as in the real file).

The graph is Smart Turn v3's architecture written out in ONNX ops: a Whisper encoder (two Conv1d
+ GELU, the second with stride 2, sinusoid-free learned positions for 400 steps, pre-norm
transformer layers, a final LayerNorm), attention pooling over time (Linear → tanh → Linear →
softmax), and the classifier (Linear 256 → LayerNorm → GELU → Linear 64 → GELU → Linear 1 →
sigmoid). Weights are random (numpy seed 0): outputs mean nothing; names, shapes and, with
`--full` (Whisper tiny's sizes: d_model 384, 4 layers, 6 heads, FFN 1536), the compute cost
are real. The real CPU file is int8-quantized; this one is float32.

Needs numpy and onnx only (Debian: python3-numpy python3-onnx), run with the system python:

  /usr/bin/python3 scripts/smart-turn-random-model.py test/fixtures/models/smart-turn-random.onnx
  /usr/bin/python3 scripts/smart-turn-random-model.py --full /tmp/smart-turn-full.onnx
"""
import argparse

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

MELS, FRAMES, STEPS = 80, 800, 400


class Graph:
    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.nodes, self.inits, self.count = [], [], 0

    def name(self, base):
        self.count += 1
        return f"{base}_{self.count}"

    def const(self, value, base="const"):
        name = self.name(base)
        self.inits.append(numpy_helper.from_array(np.asarray(value), name))
        return name

    def weight(self, shape, std=0.02):
        return self.const(self.rng.normal(0.0, std, shape).astype(np.float32), "w")

    def zeros(self, shape):
        return self.const(np.zeros(shape, np.float32), "b")

    def op(self, op_type, inputs, **attrs):
        out = self.name(op_type.lower())
        self.nodes.append(helper.make_node(op_type, inputs, [out], **attrs))
        return out

    def linear(self, x, d_in, d_out, bias=True):
        y = self.op("MatMul", [x, self.weight((d_in, d_out))])
        return self.op("Add", [y, self.zeros((d_out,))]) if bias else y

    def layer_norm(self, x, d):
        ones = self.const(np.ones((d,), np.float32), "gamma")
        return self.op("LayerNormalization", [x, ones, self.zeros((d,))], axis=-1, epsilon=1e-5)

    def gelu(self, x):
        erf = self.op("Erf", [self.op("Div", [x, self.const(np.float32(np.sqrt(2.0)))])])
        one_plus = self.op("Add", [erf, self.const(np.float32(1.0))])
        return self.op("Mul", [self.op("Mul", [x, one_plus]), self.const(np.float32(0.5))])


def build(d_model, layers, heads, ffn, seed):
    g = Graph(seed)
    dh = d_model // heads
    # Whisper encoder stem: [B, 80, 800] → [B, d, 800] → [B, d, 400] → [B, 400, d]
    x = g.op("Conv", ["input_features", g.weight((d_model, MELS, 3)), g.zeros((d_model,))], pads=[1, 1])
    x = g.gelu(x)
    x = g.op("Conv", [x, g.weight((d_model, d_model, 3)), g.zeros((d_model,))], pads=[1, 1], strides=[2])
    x = g.gelu(x)
    x = g.op("Transpose", [x], perm=[0, 2, 1])
    x = g.op("Add", [x, g.weight((STEPS, d_model))])
    split_heads = g.const(np.array([0, STEPS, heads, dh], np.int64))
    merge_heads = g.const(np.array([0, STEPS, d_model], np.int64))
    scale = g.const(np.float32(1.0 / np.sqrt(dh)))
    for _ in range(layers):
        h = g.layer_norm(x, d_model)
        q = g.op("Transpose", [g.op("Reshape", [g.linear(h, d_model, d_model), split_heads])], perm=[0, 2, 1, 3])
        k = g.op("Transpose", [g.op("Reshape", [g.linear(h, d_model, d_model, False), split_heads])], perm=[0, 2, 3, 1])
        v = g.op("Transpose", [g.op("Reshape", [g.linear(h, d_model, d_model), split_heads])], perm=[0, 2, 1, 3])
        attn = g.op("Softmax", [g.op("Mul", [g.op("MatMul", [q, k]), scale])], axis=-1)
        ctx = g.op("Reshape", [g.op("Transpose", [g.op("MatMul", [attn, v])], perm=[0, 2, 1, 3]), merge_heads])
        x = g.op("Add", [x, g.linear(ctx, d_model, d_model)])
        h = g.layer_norm(x, d_model)
        x = g.op("Add", [x, g.linear(g.gelu(g.linear(h, d_model, ffn)), ffn, d_model)])
    x = g.layer_norm(x, d_model)
    # Attention pooling over the 400 steps: [B, 400, d] → [B, d]
    scores = g.linear(g.op("Tanh", [g.linear(x, d_model, 256)]), 256, 1)
    weights = g.op("Softmax", [scores], axis=1)
    pooled = g.op("ReduceSum", [g.op("Mul", [x, weights]), g.const(np.array([1], np.int64))], keepdims=0)
    # Classifier: [B, d] → [B, 1], sigmoid
    c = g.gelu(g.layer_norm(g.linear(pooled, d_model, 256), 256))
    c = g.linear(g.gelu(g.linear(c, 256, 64)), 64, 1)
    g.nodes.append(helper.make_node("Sigmoid", [c], ["logits"]))

    graph = helper.make_graph(
        g.nodes,
        "smart_turn_v3_random",
        [helper.make_tensor_value_info("input_features", TensorProto.FLOAT, ["batch_size", MELS, FRAMES])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch_size", 1])],
        g.inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="parley")
    model.ir_version = 8
    model.doc_string = "Random weights (seed %d) in Smart Turn v3's shape; outputs are meaningless." % seed
    onnx.checker.check_model(model)
    return model


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out")
    parser.add_argument("--full", action="store_true", help="Whisper tiny's sizes (about 31 MB)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    sizes = dict(d_model=384, layers=4, heads=6, ffn=1536) if args.full else dict(d_model=32, layers=1, heads=2, ffn=64)
    onnx.save(build(seed=args.seed, **sizes), args.out)
    print(f"wrote {args.out} ({sizes})")


if __name__ == "__main__":
    main()
