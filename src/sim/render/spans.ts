/**
 * The rasterizer's span loops in WebAssembly (spans.wat, assembled into spansWasm.ts) and the
 * memory they draw in. A Raster draws a frame in this memory and copies it out when finished.
 */
import { SPANS_WASM_BASE64 } from "./spansWasm.js";

type Span = (z: number, rgb: number, i: number, end: number, w: number, d: number, r: number, g: number, b: number) => number;

interface SpanExports {
  memory: { buffer: ArrayBuffer; grow(pages: number): number };
  nearTie: { value: number };
  untested: Span;
  tested: Span;
  testedNearTie: (z: number, rgb: number, base: number, i: number, end: number, w: number, d: number,
    r: number, g: number, b: number, lo: number, hi: number) => number;
}

// NOTE: this project's TypeScript libs (ES2022, @types/node) do not declare the WebAssembly API; Node has it.
const { WebAssembly: wasm } = globalThis as unknown as {
  WebAssembly: { Module: new (bytes: Uint8Array) => object; Instance: new (module: object) => { exports: unknown } };
};

/** The span loops; see spans.wat. */
export const spans = new wasm.Instance(new wasm.Module(Buffer.from(SPANS_WASM_BASE64, "base64"))).exports as SpanExports;

/** A frame's buffers in the module's memory, as views and as byte offsets for the span loops. */
export interface SpanBuffers {
  /** 1/z per pixel. */
  z: Float32Array;
  /** A static layer's 1/z per pixel. */
  base: Float32Array;
  /** rgb8, 3 bytes per pixel, at an offset that is a multiple of 4. */
  rgb: Uint8Array;
  zAt: number;
  baseAt: number;
  rgbAt: number;
}

const PAGE = 65536;
let capacity = 0; // pixels the memory is laid out for: z at 0, base at 4·capacity, rgb at 8·capacity
let current: SpanBuffers | null = null;

/** The buffers for a frame of `pixels` pixels (valid until a call for a larger frame grows the memory). */
export function spanBuffers(pixels: number): SpanBuffers {
  const { memory } = spans;
  if (pixels > capacity) {
    const need = Math.ceil((11 * pixels) / PAGE) - memory.buffer.byteLength / PAGE;
    if (need > 0) memory.grow(need);
    capacity = pixels;
    current = null;
  }
  if (current === null || current.z.length !== pixels || current.z.buffer !== memory.buffer) {
    const zAt = 0, baseAt = 4 * capacity, rgbAt = 8 * capacity;
    current = {
      z: new Float32Array(memory.buffer, zAt, pixels), base: new Float32Array(memory.buffer, baseAt, pixels),
      rgb: new Uint8Array(memory.buffer, rgbAt, 3 * pixels), zAt, baseAt, rgbAt,
    };
  }
  return current;
}
