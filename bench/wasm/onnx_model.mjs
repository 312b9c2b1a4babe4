// A one-node ONNX model, C = MatMul(A, B), written as protobuf bytes by hand (no protobuf
// library needed): A is an input; B is an input too, or a float initializer when given, which
// onnxruntime pre-packs once at session creation. Field numbers follow onnx.proto (opset 13).

function varint(n) {
  const out = [];
  let v = BigInt(n);
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v) b |= 0x80;
    out.push(b);
  } while (v);
  return out;
}

// Concatenates fields; each field is [number, wireType, payload].
function message(fields) {
  const parts = [];
  for (const [num, wire, value] of fields) {
    parts.push(Uint8Array.from(varint((num << 3) | wire)));
    if (wire === 0) {
      parts.push(Uint8Array.from(varint(value)));
    } else {
      const bytes = typeof value === 'string' ? new TextEncoder().encode(value) : value;
      parts.push(Uint8Array.from(varint(bytes.length)), bytes);
    }
  }
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) { out.set(p, at); at += p.length; }
  return out;
}

const FLOAT = 1;

function valueInfo(name, dims) {
  const shape = message(dims.map((d) => [1, 2, message([[1, 0, d]])]));  // dim { dim_value }
  const tensorType = message([[1, 0, FLOAT], [2, 2, shape]]);           // elem_type, shape
  return message([[1, 2, name], [2, 2, message([[1, 2, tensorType]])]]);  // name, type.tensor_type
}

// M×K times K×N. B: Float32Array to make B an initializer, or null to make it an input.
export function matmulModel(M, K, N, B) {
  const node = message([[1, 2, 'A'], [1, 2, 'B'], [2, 2, 'C'], [3, 2, 'matmul'], [4, 2, 'MatMul']]);
  const graph = [[1, 2, node], [2, 2, 'gemm']];
  if (B) {
    const raw = new Uint8Array(B.buffer, B.byteOffset, B.byteLength);
    graph.push([5, 2, message([[1, 0, K], [1, 0, N], [2, 0, FLOAT], [8, 2, 'B'], [9, 2, raw]])]);
  }
  graph.push([11, 2, valueInfo('A', [M, K])]);
  if (!B) graph.push([11, 2, valueInfo('B', [K, N])]);
  graph.push([12, 2, valueInfo('C', [M, N])]);
  return message([[1, 0, 8], [7, 2, message(graph)], [8, 2, message([[1, 2, ''], [2, 0, 13]])]]);
}
