/**
 * Minimal ONNX graph builder on onnx-proto (dev dependency: used to build test bundles, never at
 * run time). Opset 13, IR version 7; float32 initializers; symbolic dims written as dim_param.
 */
import onnxProto from "onnx-proto";

const { onnx } = onnxProto;

type Dim = number | string;
type ElemType = "float32" | "int64";

const ELEM: Record<ElemType, number> = { float32: onnx.TensorProto.DataType.FLOAT, int64: onnx.TensorProto.DataType.INT64 };

function valueInfo(name: string, type: ElemType, shape: Dim[]) {
  return onnx.ValueInfoProto.create({
    name,
    type: {
      tensorType: {
        elemType: ELEM[type],
        shape: { dim: shape.map((d) => (typeof d === "number" ? { dimValue: d } : { dimParam: d })) },
      },
    },
  });
}

/** Accumulates nodes, initializers, inputs and outputs; `toBytes()` serializes the model. */
export class OnnxGraph {
  private readonly nodes: InstanceType<typeof onnx.NodeProto>[] = [];
  private readonly inits: InstanceType<typeof onnx.TensorProto>[] = [];
  private readonly inputs: InstanceType<typeof onnx.ValueInfoProto>[] = [];
  private readonly outputs: InstanceType<typeof onnx.ValueInfoProto>[] = [];
  private counter = 0;

  constructor(readonly name: string) {}

  /** Declares a graph input; returns its name. */
  input(name: string, type: ElemType, shape: Dim[]): string {
    this.inputs.push(valueInfo(name, type, shape));
    return name;
  }

  /** Declares a graph output produced by the value `from` (an Identity node renames it). */
  output(name: string, type: ElemType, shape: Dim[], from: string): void {
    this.nodes.push(onnx.NodeProto.create({ opType: "Identity", input: [from], output: [name], name: `out_${name}` }));
    this.outputs.push(valueInfo(name, type, shape));
  }

  /** Adds a float32 constant initializer. */
  constF(data: ArrayLike<number>, dims: number[], name = this.fresh("w")): string {
    this.inits.push(onnx.TensorProto.create({ name, dims, dataType: ELEM.float32, floatData: Array.from(data) }));
    return name;
  }

  /** Adds an int64 constant initializer (shapes, axes). */
  constI(data: number[], name = this.fresh("i")): string {
    this.inits.push(onnx.TensorProto.create({ name, dims: [data.length], dataType: ELEM.int64, int64Data: data }));
    return name;
  }

  /** Adds a node with int / int-list / float attributes; returns its (single) output name. */
  op(opType: string, inputs: string[], attrs: Record<string, number | number[]> = {}, floatAttrs: Record<string, number> = {}): string {
    const out = this.fresh(opType.toLowerCase());
    const attribute = [
      ...Object.entries(attrs).map(([name, v]) => Array.isArray(v)
        ? { name, type: onnx.AttributeProto.AttributeType.INTS, ints: v }
        : { name, type: onnx.AttributeProto.AttributeType.INT, i: v }),
      ...Object.entries(floatAttrs).map(([name, f]) => ({ name, type: onnx.AttributeProto.AttributeType.FLOAT, f })),
    ];
    this.nodes.push(onnx.NodeProto.create({ opType, input: inputs, output: [out], name: out, attribute }));
    return out;
  }

  /** Serialized ModelProto. */
  toBytes(): Uint8Array {
    const model = onnx.ModelProto.create({
      irVersion: 7,
      producerName: "engram-testBundle",
      opsetImport: [{ domain: "", version: 13 }],
      graph: { name: this.name, node: this.nodes, initializer: this.inits, input: this.inputs, output: this.outputs },
    });
    return onnx.ModelProto.encode(model).finish();
  }

  private fresh(prefix: string): string {
    return `${prefix}_${this.counter++}`;
  }
}
