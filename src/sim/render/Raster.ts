/**
 * Triangle scan conversion for the rasterizer (rasterize.ts): bounding box clipped to the image,
 * exact integer edge functions on a 1/SUB-pixel grid with the top-left fill rule, per-row spans
 * solved from the edge functions, and a z-buffer of 1/z (linear in screen space, so interpolating
 * it is perspective-correct). Pixel (u, v) is sampled at its centre, integer coordinates (ROS).
 *
 * The frame is cleared lazily, per chunk of 2^CHUNK_BITS pixels of a row: a chunk is "untouched"
 * until a span first reaches it (its pixels then start as background with 1/z = 0), and `finish()`
 * clears the chunks no span reached. Where a span crosses untouched chunks every 1/z > 0 passes the
 * depth test against that 0, so those pixels are written without it: the same image as clearing first
 * and testing each pixel, with one write per pixel instead of two, and, meshes being drawn front to
 * back, most of a frame's pixels.
 *
 * Drawn over a static layer (`base`, see rasterize.ts) the frame starts as the layer's finished pixels:
 * no chunk is untouched, every pixel is depth-tested, and each is checked for a near tie with the layer.
 *
 * The rows of a triangle are drawn by spans.wat (WebAssembly, four pixels per SIMD iteration) in its
 * memory (spans.ts), and `finish()` copies the frame into the caller's buffers. Along a span 1/z is
 * w + k·dw at its k-th pixel (not a running sum, which would serialize the pixels).
 */
import { spanBuffers, spans } from "./spans.js";

const SUB = 16; // sub-pixel steps per pixel for the integer edge functions
const CHUNK_BITS = 4; // chunks of 16 pixels
/** Relative distance from a layer's 1/z within which a pixel counts as a near tie (8-16 float32 ulps). */
const TIE = 2 ** -20;

/** Scan-converts screen-space triangles into one frame's buffers with the current flat colour. */
export class Raster {
  /** Triangles that reached scan conversion (non-empty bounding box on the image), the layer's included. */
  count: number;
  private r = 0;
  private g = 0;
  private b = 0;
  /** The background colour packed as 0x00BBGGRR (spans.wat's clear). */
  private readonly background: number;
  private readonly W: number;
  private readonly H: number;
  private readonly rgb: Uint8Array;
  private readonly rgbAt: number;
  private readonly zAt: number;
  private readonly baseAt: number;
  private readonly touchedAt: number;
  private readonly out: { rgb: Uint8Array; depth: Float32Array };
  private readonly zbuf: Float32Array;
  /** Per row and chunk (row-major), 1 once a span has reached the chunk (its pixels are initialised). */
  private readonly touched: Uint8Array;
  private readonly chunksPerRow: number;
  /** Drawn over a static layer. */
  private readonly overLayer: boolean;

  /**
   * Draws one frame for `rgb` and `depth` (the z-buffer of 1/z, 0 = nothing drawn), written there by
   * `finish()`: every pixel is the background colour `background` (rgb8) with 1/z = 0 unless drawn.
   * With `base` (a static layer: rgb8 and 1/z) the frame instead starts as that layer and is drawn over it.
   */
  constructor(frame: { width: number; height: number; rgb: Uint8Array; depth: Float32Array }, background: readonly [number, number, number],
    base: { rgb: Uint8Array; z: Float32Array; rasterized: number; version: number } | null = null) {
    this.W = frame.width; this.H = frame.height; this.out = frame;
    this.chunksPerRow = ((this.W - 1) >> CHUNK_BITS) + 1;
    // NOTE: one set of buffers for every Raster: a Raster draws one frame inside one synchronous
    // renderCamera call, so two are never in use at once.
    const mem = spanBuffers(this.W * this.H, this.H * this.chunksPerRow);
    this.rgb = mem.rgb; this.zbuf = mem.z; this.rgbAt = mem.rgbAt; this.zAt = mem.zAt; this.baseAt = mem.baseAt;
    this.touched = mem.touched; this.touchedAt = mem.touchedAt;
    spans.nearTie.value = 0;
    if (base !== null) {
      mem.rgb.set(base.rgb); mem.z.set(base.z);
      if (mem.baseOf?.layer !== base || mem.baseOf.version !== base.version) { mem.base.set(base.z); mem.baseOf = { layer: base, version: base.version }; }
    }
    this.background = clampByte(background[0]) | (clampByte(background[1]) << 8) | (clampByte(background[2]) << 16);
    this.touched.fill(base === null ? 0 : 1);
    this.overLayer = base !== null;
    this.count = base?.rasterized ?? 0;
  }

  /** Sets the flat colour for the following triangles (0..255 per channel, rounded and clamped). */
  setColor(r: number, g: number, b: number): void {
    this.r = clampByte(r); this.g = clampByte(g); this.b = clampByte(b);
  }

  /** Over a layer: true once a drawn pixel's 1/z came within TIE (relative) of the layer's. */
  get nearTie(): boolean {
    return spans.nearTie.value !== 0;
  }

  /**
   * Clears what no triangle reached (background, 1/z = 0) and writes the frame to the caller's `rgb`
   * (unless `copyRgb` is false: see `pixels`) and, unless `depth` is false, `depth`: call once, after
   * the last triangle.
   */
  finish(depth = true, copyRgb = true): void {
    this.clearUntouched();
    if (copyRgb) this.out.rgb.set(this.rgb);
    if (depth) this.out.depth.set(this.zbuf);
  }

  /** The finished frame's rgb in the span loops' memory: valid until the next Raster draws. */
  get pixels(): Uint8Array {
    return this.rgb;
  }

  private clearUntouched(): void {
    const touched = this.touched, n = this.chunksPerRow, W = this.W;
    for (let y = 0, c0 = 0; y < this.H; y++, c0 += n) {
      for (let c = 0; c < n; c++) {
        if (touched[c0 + c] !== 0) continue;
        let cEnd = c;
        while (cEnd + 1 < n && touched[c0 + cEnd + 1] === 0) cEnd++;
        spans.clear(this.zAt, this.rgbAt, y * W + (c << CHUNK_BITS), y * W + Math.min(W - 1, ((cEnd + 1) << CHUNK_BITS) - 1), this.background);
        c = cEnd;
      }
    }
  }

  /** Draws one triangle: pixel coordinates (u, v) and inverse depth 1/z per vertex. */
  triangle(u0: number, v0: number, w0: number, u1: number, v1: number, w1: number, u2: number, v2: number, w2: number): void {
    // 1/z is a plane in screen space, w(u, v) = w0 + A·(u − u0) + B·(v − v0), solved from the
    // unsnapped vertices (snapping only decides coverage) and clamped to the vertices' range.
    const du1 = u1 - u0, dv1 = v1 - v0, du2 = u2 - u0, dv2 = v2 - v0;
    const det = du1 * dv2 - dv1 * du2;
    if (!(Math.abs(det) > 0)) return; // zero area or NaN
    const gA = ((w1 - w0) * dv2 - (w2 - w0) * dv1) / det, gB = ((w2 - w0) * du1 - (w1 - w0) * du2) / det;
    const wLo = Math.min(w0, w1, w2), wHi = Math.max(w0, w1, w2);
    let X0 = Math.round(u0 * SUB), Y0 = Math.round(v0 * SUB);
    let X1 = Math.round(u1 * SUB), Y1 = Math.round(v1 * SUB);
    const X2 = Math.round(u2 * SUB), Y2 = Math.round(v2 * SUB);
    const area = (X1 - X0) * (Y2 - Y0) - (Y1 - Y0) * (X2 - X0);
    if (area === 0) return;
    if (area < 0) { // make the winding positive (interior where all E ≥ 0): swap vertices 0 and 1
      let tmp = X0; X0 = X1; X1 = tmp; tmp = Y0; Y0 = Y1; Y1 = tmp;
    }
    const W = this.W, H = this.H;
    const minX = Math.max(0, Math.ceil(Math.min(X0, X1, X2) / SUB));
    const maxX = Math.min(W - 1, Math.floor(Math.max(X0, X1, X2) / SUB));
    const minY = Math.max(0, Math.ceil(Math.min(Y0, Y1, Y2) / SUB));
    const maxY = Math.min(H - 1, Math.floor(Math.max(Y0, Y1, Y2) / SUB));
    if (minX > maxX || minY > maxY) return;
    this.count++;
    // Edge functions E_ab(p) = (Xb − Xa)(Py − Ya) − (Yb − Ya)(Px − Xa), ≥ 0 inside; exact in doubles.
    // Bias −1 on edges that are not top-left so shared edges are drawn once.
    const px = minX * SUB, py = minY * SUB;
    const e12 = (X2 - X1) * (py - Y1) - (Y2 - Y1) * (px - X1) + (isTopLeft(X1, Y1, X2, Y2) ? 0 : -1);
    const e20 = (X0 - X2) * (py - Y2) - (Y0 - Y2) * (px - X2) + (isTopLeft(X2, Y2, X0, Y0) ? 0 : -1);
    const e01 = (X1 - X0) * (py - Y0) - (Y1 - Y0) * (px - X0) + (isTopLeft(X0, Y0, X1, Y1) ? 0 : -1);
    const dx12 = -(Y2 - Y1) * SUB, dy12 = (X2 - X1) * SUB;
    const dx20 = -(Y0 - Y2) * SUB, dy20 = (X0 - X2) * SUB;
    const dx01 = -(Y1 - Y0) * SUB, dy01 = (X1 - X0) * SUB;
    const wRow = w0 + gA * (minX - u0) + gB * (minY - v0);
    // An in-range span (both ends in [wLo, wHi]; w + k·dw is monotonic in k) keeps every w >= wLo > 0,
    // nonzero as a float32, so it passes an untouched 0.
    const untested = wLo > 1e-30 && !this.overLayer;
    spans.rows(this.zAt, this.rgbAt, this.baseAt, this.overLayer ? 1 : 0, this.touchedAt, W, this.chunksPerRow, minX, maxX, minY, maxY,
      e12, e20, e01, dx12, dy12, dx20, dy20, dx01, dy01, wRow, gB, gA, wLo, wHi, untested ? 1 : 0, this.r, this.g, this.b, this.background, 1 - TIE, 1 + TIE);
  }
}

/** Top-left rule for edge a→b with the interior on its E ≥ 0 side (image y down). */
function isTopLeft(xa: number, ya: number, xb: number, yb: number): boolean {
  return yb < ya || (yb === ya && xb > xa);
}

function clampByte(v: number): number {
  return v <= 0 ? 0 : v >= 255 ? 255 : Math.round(v);
}
