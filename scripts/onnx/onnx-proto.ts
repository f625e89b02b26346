/**
 * ONNX's ModelProto in protobuf wire format, written by hand (onnx/onnx.proto, IR version 8): only the
 * fields a model built by scripts/onnx/onnx-graph.ts uses. No dependency: the test models are made
 * where nothing but Node is installed.
 */

/** TensorProto.DataType values used here. */
export const dataType = { float: 1, uint8: 2, int8: 3, int32: 6, int64: 7, bool: 9 } as const;
export type DataTypeName = keyof typeof dataType;

export interface TensorData {
  name: string;
  type: DataTypeName;
  dims: readonly number[];
  /** Little-endian element bytes, as TensorProto.raw_data holds them. */
  raw: Uint8Array;
}

/** An attribute value: which AttributeProto field it fills. */
export type Attribute =
  | { i: number }
  | { f: number }
  | { s: string }
  | { ints: readonly number[] }
  | { floats: readonly number[] }
  | { t: TensorData };

export interface NodeData {
  op: string;
  inputs: readonly string[];
  outputs: readonly string[];
  name: string;
  attributes: Readonly<Record<string, Attribute>>;
  domain?: string;
}

/** A graph input or output: its element type and shape (a string is a named dynamic axis). */
export interface ValueData {
  name: string;
  type: DataTypeName;
  shape: readonly (number | string)[];
}

export interface ModelData {
  opset: number;
  /** Extra operator sets by domain (e.g. `com.microsoft`), with their version. */
  extraOpsets?: Readonly<Record<string, number>>;
  producer: string;
  graphName: string;
  nodes: readonly NodeData[];
  initializers: readonly TensorData[];
  inputs: readonly ValueData[];
  outputs: readonly ValueData[];
  /** ModelProto.metadata_props: free-form key/value pairs. */
  metadata?: Readonly<Record<string, string>>;
}

const wire = { varint: 0, fixed32: 5, bytes: 2 } as const;

function varint(value: number | bigint): Uint8Array {
  // Negative int64 values take ten bytes (two's complement), as protobuf writes them.
  let v = BigInt.asUintN(64, BigInt(value));
  const out: number[] = [];
  while (v >= 0x80n) {
    out.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  out.push(Number(v));
  return Uint8Array.from(out);
}

/** One message's fields in order; `bytes()` joins them. */
class Message {
  private readonly parts: Uint8Array[] = [];

  private tag(field: number, type: number): void {
    this.parts.push(varint((field << 3) | type));
  }

  int(field: number, value: number): this {
    this.tag(field, wire.varint);
    this.parts.push(varint(value));
    return this;
  }

  float(field: number, value: number): this {
    this.tag(field, wire.fixed32);
    const b = Buffer.alloc(4);
    b.writeFloatLE(value);
    this.parts.push(b);
    return this;
  }

  bytes(field: number, value: Uint8Array): this {
    this.tag(field, wire.bytes);
    this.parts.push(varint(value.length), value);
    return this;
  }

  string(field: number, value: string): this {
    return this.bytes(field, Buffer.from(value, 'utf8'));
  }

  message(field: number, value: Message): this {
    return this.bytes(field, value.encode());
  }

  encode(): Uint8Array {
    return Buffer.concat(this.parts);
  }
}

function tensor(t: TensorData): Message {
  const m = new Message();
  for (const d of t.dims) m.int(1, d);
  return m.int(2, dataType[t.type]).string(8, t.name).bytes(9, t.raw);
}

const attributeType = { f: 1, i: 2, s: 3, t: 4, floats: 6, ints: 7 } as const;

function attribute(name: string, a: Attribute): Message {
  const m = new Message().string(1, name);
  if ('i' in a) m.int(3, a.i).int(20, attributeType.i);
  else if ('f' in a) m.float(2, a.f).int(20, attributeType.f);
  else if ('s' in a) m.string(4, a.s).int(20, attributeType.s);
  else if ('t' in a) m.message(5, tensor(a.t)).int(20, attributeType.t);
  else if ('ints' in a) {
    for (const v of a.ints) m.int(8, v);
    m.int(20, attributeType.ints);
  } else {
    for (const v of a.floats) m.float(7, v);
    m.int(20, attributeType.floats);
  }
  return m;
}

function node(n: NodeData): Message {
  const m = new Message();
  for (const i of n.inputs) m.string(1, i);
  for (const o of n.outputs) m.string(2, o);
  m.string(3, n.name).string(4, n.op);
  for (const [name, a] of Object.entries(n.attributes)) m.message(5, attribute(name, a));
  if (n.domain !== undefined) m.string(7, n.domain);
  return m;
}

function valueInfo(v: ValueData): Message {
  const shape = new Message();
  for (const d of v.shape)
    shape.message(1, typeof d === 'number' ? new Message().int(1, d) : new Message().string(2, d));
  const tensorType = new Message().int(1, dataType[v.type]).message(2, shape);
  return new Message().string(1, v.name).message(2, new Message().message(1, tensorType));
}

/** The model as the bytes of an `.onnx` file. */
export function encodeModel(model: ModelData): Uint8Array {
  const graph = new Message();
  for (const n of model.nodes) graph.message(1, node(n));
  graph.string(2, model.graphName);
  for (const t of model.initializers) graph.message(5, tensor(t));
  for (const v of model.inputs) graph.message(11, valueInfo(v));
  for (const v of model.outputs) graph.message(12, valueInfo(v));

  const m = new Message().int(1, 8).string(2, model.producer);
  m.message(7, graph);
  m.message(8, new Message().string(1, '').int(2, model.opset));
  for (const [domain, version] of Object.entries(model.extraOpsets ?? {}))
    m.message(8, new Message().string(1, domain).int(2, version));
  for (const [key, value] of Object.entries(model.metadata ?? {}))
    m.message(14, new Message().string(1, key).string(2, value));
  return m.encode();
}
