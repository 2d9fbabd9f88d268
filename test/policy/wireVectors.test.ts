/**
 * The shared remote-policy wire vectors (test/vectors/wire.json), which engram_ml/servers/test_wire.py
 * decodes too: frames encoded by either side decode here to the values written beside them, frames
 * this side encoded are still encoded byte for byte, and the refused frames are refused.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { decodeFrame, encodeFrame, type NdArray, type WireValue } from "../../src/policy/remote/wire.js";

interface Vectors {
  frames: Array<{ name: string; encoded_by: "python" | "typescript"; hex: string; value: unknown }>;
  refused: Array<{ name: string; hex: string }>;
}
const VECTORS = JSON.parse(readFileSync("test/vectors/wire.json", "utf8")) as Vectors;

function isNdArray(v: object): v is NdArray {
  return "dtype" in v && "shape" in v && "data" in v && ArrayBuffer.isView((v as NdArray).data);
}

/** A decoded value in the vectors' JSON form (arrays as {"ndarray": {dtype, shape, data}}). */
function plain(v: WireValue): unknown {
  if (v === null || typeof v !== "object") return typeof v === "bigint" ? Number(v) : v;
  if (Array.isArray(v)) return v.map(plain);
  if (v instanceof Uint8Array) return { bin: Buffer.from(v).toString("hex") };
  if (isNdArray(v)) return { ndarray: { dtype: v.dtype, shape: v.shape, data: Array.from(v.data, Number) } };
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
}

function typed(dtype: NdArray["dtype"], data: number[]): NdArray["data"] {
  switch (dtype) {
    case "<f4": return Float32Array.from(data);
    case "<f8": return Float64Array.from(data);
    case "<i8": return BigInt64Array.from(data, BigInt);
    case "<i4": return Int32Array.from(data);
    case "|u1": return Uint8Array.from(data);
  }
}

/** The vectors' JSON form back to a value encodeFrame takes. */
function wire(v: unknown): WireValue {
  if (v === null || typeof v !== "object") return v as WireValue;
  if (Array.isArray(v)) return v.map(wire);
  const nd = (v as { ndarray?: { dtype: NdArray["dtype"]; shape: number[]; data: number[] } }).ndarray;
  if (nd) return { dtype: nd.dtype, shape: nd.shape, data: typed(nd.dtype, nd.data) };
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, wire(x)]));
}

test("the shared wire vectors decode to their values, whichever side encoded them", () => {
  const sides = new Set(VECTORS.frames.map((f) => f.encoded_by));
  assert.ok(sides.has("python") && sides.has("typescript"));
  for (const f of VECTORS.frames) {
    assert.deepEqual(plain(decodeFrame(Buffer.from(f.hex, "hex"))), f.value, f.name);
  }
});

test("the frames TypeScript encoded are still encoded byte for byte", () => {
  for (const f of VECTORS.frames.filter((x) => x.encoded_by === "typescript")) {
    assert.equal(Buffer.from(encodeFrame(wire(f.value))).toString("hex"), f.hex, f.name);
  }
});

test("the shared refused frames are refused", () => {
  assert.ok(VECTORS.refused.length > 0);
  for (const f of VECTORS.refused) {
    assert.throws(() => decodeFrame(Buffer.from(f.hex, "hex")), Error, f.name);
  }
});
