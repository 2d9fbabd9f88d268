/**
 * The rasterizer's span loops in WebAssembly (spans.wat, assembled into spansWasm.ts) and the
 * memory they draw in. A Raster draws a frame in this memory and copies it out when finished.
 */
import { SPANS_WASM_BASE64 } from "./spansWasm.js";

interface SpanExports {
  memory: { buffer: ArrayBuffer; grow(pages: number): number };
  nearTie: { value: number };
  /** Background (packed 0x00BBGGRR) and 1/z = 0 for pixels i..end. */
  clear(z: number, rgb: number, i: number, end: number, background: number): void;
  /** Every row of one triangle; the parameters are spans.wat's (Raster.triangle passes them). */
  rows(z: number, rgb: number, base: number, hasBase: number, touched: number, W: number, chunksPerRow: number,
    minX: number, maxX: number, minY: number, maxY: number, e12: number, e20: number, e01: number,
    dx12: number, dy12: number, dx20: number, dy20: number, dx01: number, dy01: number,
    wRow: number, gB: number, dwx: number, wLo: number, wHi: number, untested: number,
    r: number, g: number, b: number, background: number, tieLo: number, tieHi: number): void;
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
  /** rgb8, 3 bytes per pixel. */
  rgb: Uint8Array;
  /** The chunk map (Raster.ts): one byte per 16-pixel chunk of a row, at most one per pixel. */
  touched: Uint8Array;
  zAt: number;
  baseAt: number;
  rgbAt: number;
  touchedAt: number;
  /** The static layer whose 1/z `base` holds (and its version), so a frame over the same layer skips the copy. */
  baseOf: { layer: object; version: number } | null;
}

const PAGE = 65536;
let capacity = 0; // pixels the memory is laid out for: z at 0, base at 4·capacity, rgb at 8·capacity, touched at 11·capacity
let current: SpanBuffers | null = null;

/**
 * The buffers for a frame of `pixels` pixels and `chunks` chunks (valid until a call for a larger
 * frame grows the memory).
 */
export function spanBuffers(pixels: number, chunks: number): SpanBuffers {
  const { memory } = spans;
  if (chunks > pixels) throw new Error(`spanBuffers: ${chunks} chunks for ${pixels} pixels`);
  // wasm32 addresses: 12 bytes per pixel and 16 of slack (below) must stay below 2^31 (i32 offsets).
  if (12 * pixels + 16 >= 2 ** 31) throw new Error(`render frame of ${pixels} pixels is too large for the rasterizer (at most ${Math.floor((2 ** 31 - 17) / 12)})`);
  if (pixels > capacity) {
    // + 16: the span loops' 4-pixel groups may read (and write back unchanged) up to 16 bytes past the last pixel.
    const need = Math.ceil((12 * pixels + 16) / PAGE) - memory.buffer.byteLength / PAGE;
    if (need > 0) memory.grow(need);
    capacity = pixels;
    current = null;
  }
  if (current === null || current.z.length !== pixels || current.touched.length !== chunks || current.z.buffer !== memory.buffer) {
    const zAt = 0, baseAt = 4 * capacity, rgbAt = 8 * capacity, touchedAt = 11 * capacity;
    current = {
      z: new Float32Array(memory.buffer, zAt, pixels), base: new Float32Array(memory.buffer, baseAt, pixels),
      rgb: new Uint8Array(memory.buffer, rgbAt, 3 * pixels), touched: new Uint8Array(memory.buffer, touchedAt, chunks),
      zAt, baseAt, rgbAt, touchedAt, baseOf: null,
    };
  }
  return current;
}
