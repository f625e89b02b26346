/**
 * Builds an ONNX graph node by node (scripts/onnx/onnx-proto.ts writes it out): graph inputs and
 * outputs, initializers, and ops whose outputs get fresh names. The layers of the test models are
 * built on it in scripts/onnx/onnx-layers.ts.
 */
import {
  encodeModel,
  type Attribute,
  type DataTypeName,
  type NodeData,
  type TensorData,
  type ValueData,
} from './onnx-proto.js';

export type Shape = readonly (number | string)[];

function raw(data: Float32Array | Int8Array | Uint8Array | BigInt64Array | Int32Array): Uint8Array {
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

export class GraphBuilder {
  private readonly nodes: NodeData[] = [];
  private readonly initializers: TensorData[] = [];
  private readonly inputs: ValueData[] = [];
  private readonly outputs: ValueData[] = [];
  private count = 0;

  constructor(readonly name: string) {}

  private fresh(prefix: string): string {
    return `${prefix}_${this.count++}`;
  }

  input(name: string, type: DataTypeName, shape: Shape): string {
    this.inputs.push({ name, type, shape });
    return name;
  }

  /** Names `value` as the graph output `name`. */
  output(name: string, value: string, type: DataTypeName, shape: Shape): void {
    this.op('Identity', [value], {}, [name]);
    this.outputs.push({ name, type, shape });
  }

  private initializer(type: DataTypeName, dims: readonly number[], data: Uint8Array): string {
    const name = this.fresh('w');
    this.initializers.push({ name, type, dims, raw: data });
    return name;
  }

  floats(dims: readonly number[], data: Float32Array | readonly number[]): string {
    return this.initializer('float', dims, raw(Float32Array.from(data)));
  }

  int8s(dims: readonly number[], data: Int8Array): string {
    return this.initializer('int8', dims, raw(data));
  }

  int64s(dims: readonly number[], data: readonly number[]): string {
    return this.initializer('int64', dims, raw(BigInt64Array.from(data.map(BigInt))));
  }

  scalar(value: number): string {
    return this.floats([], [value]);
  }

  int64(value: number): string {
    return this.int64s([], [value]);
  }

  /** One op; returns its first output (named `outputs`, or fresh names for that many). */
  op(
    op: string,
    inputs: readonly string[],
    attributes: Record<string, Attribute> = {},
    outputs: readonly string[] | number = 1,
  ): string {
    return this.ops(op, inputs, attributes, outputs)[0]!;
  }

  /** One op with several outputs. */
  ops(
    op: string,
    inputs: readonly string[],
    attributes: Record<string, Attribute>,
    outputs: readonly string[] | number,
  ): string[] {
    const names = typeof outputs === 'number' ? Array.from({ length: outputs }, () => this.fresh(op)) : [...outputs];
    this.nodes.push({ op, inputs, outputs: names, name: this.fresh(`${op}_node`), attributes });
    return names;
  }

  /** The `.onnx` file's bytes (opset 17). */
  encode(metadata: Record<string, string> = {}): Uint8Array {
    return encodeModel({
      opset: 17,
      producer: 'parley scripts/make-test-models.ts',
      graphName: this.name,
      nodes: this.nodes,
      initializers: this.initializers,
      inputs: this.inputs,
      outputs: this.outputs,
      metadata,
    });
  }
}
