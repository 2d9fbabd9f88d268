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
 * back, most of a frame's pixels. Clears write the background four pixels (three 32-bit words) at a time.
 *
 * Drawn over a static layer (`base`, see rasterize.ts) the frame starts as the layer's finished pixels:
 * no chunk is untouched, every pixel is depth-tested, and each is checked for a near tie with the layer.
 *
 * The frame is drawn in the memory of the span loops (spans.ts, WebAssembly: the same arithmetic,
 * ~3x faster per pixel than typed-array loops here) and copied into the caller's buffers by `finish()`.
 */
import { spanBuffers, spans } from "./spans.js";

const SUB = 16; // sub-pixel steps per pixel for the integer edge functions
const CHUNK_BITS = 4; // chunks of 16 pixels
const LITTLE_ENDIAN = new Uint8Array(Uint32Array.of(1).buffer)[0] === 1;
/** Relative distance from a layer's 1/z within which a pixel counts as a near tie (8-16 float32 ulps). */
const TIE = 2 ** -20;
// NOTE: one chunk map for every Raster (cleared by each constructor): a Raster draws one frame inside
// one synchronous renderCamera call, so two are never in use at once; saves an allocation per frame.
let touchedScratch = new Uint8Array(0);

/** An rgb8 colour as bytes and as the three little-endian words of four pixels (rgbr, gbrg, brgb). */
interface Paint { r: number; g: number; b: number; w0: number; w1: number; w2: number }

function paintOf(r: number, g: number, b: number): Paint {
  const rgbr = (r | (g << 8) | (b << 16) | (r << 24)) >>> 0;
  return { r, g, b, w0: rgbr, w1: ((rgbr >>> 8) | (g << 24)) >>> 0, w2: ((rgbr >>> 16) | (g << 16) | (b << 24)) >>> 0 };
}

/** Scan-converts screen-space triangles into one frame's buffers with the current flat colour. */
export class Raster {
  /** Triangles that reached scan conversion (non-empty bounding box on the image), the layer's included. */
  count: number;
  /** Over a layer: a drawn pixel's 1/z came within TIE (relative) of the layer's (here or in the span loops). */
  private tie = false;
  private paint: Paint = paintOf(0, 0, 0);
  private readonly background: Paint;
  private readonly W: number;
  private readonly H: number;
  private readonly rgb: Uint8Array;
  private readonly rgbAt: number;
  private readonly zAt: number;
  private readonly baseAt: number;
  private readonly out: { rgb: Uint8Array; depth: Float32Array };
  /** rgb as 32-bit words (null where they would not be little-endian). */
  private readonly rgb32: Uint32Array | null;
  private readonly zbuf: Float32Array;
  /** Per row and chunk (row-major), 1 once a span has reached the chunk (its pixels are initialised). */
  private readonly touched: Uint8Array;
  private readonly chunksPerRow: number;
  private readonly base: Float32Array | null;

  /**
   * Draws one frame for `rgb` and `depth` (the z-buffer of 1/z, 0 = nothing drawn), written there by
   * `finish()`: every pixel is the background colour `background` (rgb8) with 1/z = 0 unless drawn.
   * With `base` (a static layer: rgb8 and 1/z) the frame instead starts as that layer and is drawn over it.
   */
  constructor(frame: { width: number; height: number; rgb: Uint8Array; depth: Float32Array }, background: readonly [number, number, number],
    base: { rgb: Uint8Array; z: Float32Array; rasterized: number } | null = null) {
    this.W = frame.width; this.H = frame.height; this.out = frame;
    const mem = spanBuffers(this.W * this.H);
    this.rgb = mem.rgb; this.zbuf = mem.z; this.rgbAt = mem.rgbAt; this.zAt = mem.zAt; this.baseAt = mem.baseAt;
    this.rgb32 = LITTLE_ENDIAN ? new Uint32Array(mem.rgb.buffer, mem.rgb.byteOffset, mem.rgb.length >> 2) : null;
    spans.nearTie.value = 0;
    if (base !== null) { mem.rgb.set(base.rgb); mem.z.set(base.z); mem.base.set(base.z); }
    this.background = paintOf(clampByte(background[0]), clampByte(background[1]), clampByte(background[2]));
    this.chunksPerRow = ((this.W - 1) >> CHUNK_BITS) + 1;
    const n = this.H * this.chunksPerRow;
    if (touchedScratch.length < n) touchedScratch = new Uint8Array(n);
    this.touched = touchedScratch.subarray(0, n);
    this.touched.fill(base === null ? 0 : 1);
    this.base = base === null ? null : mem.base;
    this.count = base?.rasterized ?? 0;
  }

  /** Sets the flat colour for the following triangles (0..255 per channel, rounded and clamped). */
  setColor(r: number, g: number, b: number): void {
    this.paint = paintOf(clampByte(r), clampByte(g), clampByte(b));
  }

  /** Over a layer: true once a drawn pixel's 1/z came within TIE (relative) of the layer's. */
  get nearTie(): boolean {
    return this.tie || spans.nearTie.value !== 0;
  }

  /**
   * Clears what no triangle reached (background, 1/z = 0) and writes the frame to the caller's `rgb`
   * and, unless `depth` is false, `depth`: call once, after the last triangle.
   */
  finish(depth = true): void {
    this.clearUntouched();
    this.out.rgb.set(this.rgb);
    if (depth) this.out.depth.set(this.zbuf);
  }

  private clearUntouched(): void {
    const touched = this.touched, n = this.chunksPerRow, W = this.W;
    for (let y = 0, c0 = 0; y < this.H; y++, c0 += n) {
      for (let c = 0; c < n; c++) {
        if (touched[c0 + c] !== 0) continue;
        let cEnd = c;
        while (cEnd + 1 < n && touched[c0 + cEnd + 1] === 0) cEnd++;
        this.clearPixels(y * W + (c << CHUNK_BITS), y * W + Math.min(W - 1, ((cEnd + 1) << CHUNK_BITS) - 1));
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
    let e12 = (X2 - X1) * (py - Y1) - (Y2 - Y1) * (px - X1) + (isTopLeft(X1, Y1, X2, Y2) ? 0 : -1);
    let e20 = (X0 - X2) * (py - Y2) - (Y0 - Y2) * (px - X2) + (isTopLeft(X2, Y2, X0, Y0) ? 0 : -1);
    let e01 = (X1 - X0) * (py - Y0) - (Y1 - Y0) * (px - X0) + (isTopLeft(X0, Y0, X1, Y1) ? 0 : -1);
    const dx12 = -(Y2 - Y1) * SUB, dy12 = (X2 - X1) * SUB;
    const dx20 = -(Y0 - Y2) * SUB, dy20 = (X0 - X2) * SUB;
    const dx01 = -(Y1 - Y0) * SUB, dy01 = (X1 - X0) * SUB;
    const dwx = gA;
    let wRow = w0 + gA * (minX - u0) + gB * (minY - v0);
    // Along a row w accumulates rounding below (W + 3)·2^-52·wHi; with this margin every w of an
    // in-range span stays above wLo / 2 > 0 (and nonzero as a float32), so it passes an untouched 0.
    const untested = wLo > 1e-30 && wLo > wHi * (W + 8) * 2 ** -48 && this.base === null;
    const rgb = this.rgb, zbuf = this.zbuf, touched = this.touched, base = this.base, { r, g, b } = this.paint;
    for (let y = minY; y <= maxY; y++, e12 += dy12, e20 += dy20, e01 += dy01, wRow += gB) {
      // The row's covered span, solved from the three edge functions (exact: see spanLo/spanHi).
      const xs = minX + Math.max(0, spanLo(e12, dx12), spanLo(e20, dx20), spanLo(e01, dx01));
      const xe = minX + Math.min(maxX - minX, spanHi(e12, dx12), spanHi(e20, dx20), spanHi(e01, dx01));
      if (xs > xe) continue;
      let w = wRow + dwx * (xs - minX);
      const wEnd = w + dwx * (xe - xs), row = y * W, end = row + xe;
      const c0 = y * this.chunksPerRow, cFirst = c0 + (xs >> CHUNK_BITS), cLast = c0 + (xe >> CHUNK_BITS);
      const rowEnd = row + W - 1;
      if (untested && w >= wLo && w <= wHi && wEnd >= wLo && wEnd <= wHi) { // linear, so the whole span is in range
        // Runs of chunks in one state, left to right (w runs on unbroken): untouched ones without the test.
        let i = row + xs;
        for (let c = cFirst; i <= end;) {
          const state = touched[c];
          let cRun = c;
          while (cRun < cLast && touched[cRun + 1] === state) cRun++;
          const runLast = Math.min(rowEnd, row + ((cRun - c0 + 1) << CHUNK_BITS) - 1), runEnd = Math.min(end, runLast);
          if (state === 0) { // first reached: the chunks' pixels outside the span start cleared
            if (c === cFirst && row + ((c - c0) << CHUNK_BITS) < i) this.clearPixels(row + ((c - c0) << CHUNK_BITS), i - 1);
            if (runLast > runEnd) this.clearPixels(runEnd + 1, runLast);
            w = spans.untested(this.zAt, this.rgbAt, i, runEnd, w, dwx, r, g, b);
          } else {
            w = spans.tested(this.zAt, this.rgbAt, i, runEnd, w, dwx, r, g, b);
          }
          i = runEnd + 1;
          c = cRun + 1;
        }
      } else {
        for (let c = cFirst; c <= cLast; c++) {
          if (touched[c] === 0) this.clearPixels(row + ((c - c0) << CHUNK_BITS), Math.min(rowEnd, row + ((c - c0 + 1) << CHUNK_BITS) - 1));
        }
        if (w >= wLo && w <= wHi && wEnd >= wLo && wEnd <= wHi) { // in range: no clamping, as the span loops do
          if (base === null) spans.tested(this.zAt, this.rgbAt, row + xs, end, w, dwx, r, g, b);
          else spans.testedNearTie(this.zAt, this.rgbAt, this.baseAt, row + xs, end, w, dwx, r, g, b, 1 - TIE, 1 + TIE);
        } else {
          for (let i = row + xs; i <= end; i++, w += dwx) {
            const wc = w < wLo ? wLo : w > wHi ? wHi : w;
            if (base !== null && wc >= base[i] * (1 - TIE) && wc <= base[i] * (1 + TIE)) this.tie = true;
            if (wc > zbuf[i]) { zbuf[i] = wc; const o = 3 * i; rgb[o] = r; rgb[o + 1] = g; rgb[o + 2] = b; }
          }
        }
      }
      for (let c = cFirst; c <= cLast; c++) touched[c] = 1;
    }
  }

  /** Background and 1/z = 0 for pixels i..end (inclusive). */
  private clearPixels(i: number, end: number): void {
    const zbuf = this.zbuf;
    if (end - i < 32) for (let k = i; k <= end; k++) zbuf[k] = 0;
    else zbuf.fill(0, i, end + 1);
    this.fillPixels(i, end, this.background);
  }

  /** Writes colour `p` to pixels i..end (inclusive), whole groups of four as three words. */
  private fillPixels(i: number, end: number, p: Paint): void {
    const rgb = this.rgb, u = this.rgb32, r = p.r, g = p.g, b = p.b;
    if (u !== null && end - i >= 7) {
      for (; (i & 3) !== 0; i++) { const o = 3 * i; rgb[o] = r; rgb[o + 1] = g; rgb[o + 2] = b; }
      const w0 = p.w0, w1 = p.w1, w2 = p.w2;
      for (let k = (3 * i) >> 2; i + 3 <= end; i += 4, k += 3) { u[k] = w0; u[k + 1] = w1; u[k + 2] = w2; }
    }
    for (; i <= end; i++) { const o = 3 * i; rgb[o] = r; rgb[o + 1] = g; rgb[o + 2] = b; }
  }
}

// For an edge with value e at the row's first pixel and step d per pixel, the first (spanLo) and
// last (spanHi) pixel offsets where e + d·k ≥ 0. e and d are integers below 2^53 and |e/d| is far
// below 2^40, so the correctly rounded quotient never crosses an integer: ceil/floor are exact.
function spanLo(e: number, d: number): number {
  if (d > 0) return Math.ceil(-e / d);
  return e >= 0 ? 0 : Infinity;
}

function spanHi(e: number, d: number): number {
  if (d < 0) return Math.floor(e / -d);
  return d > 0 || e >= 0 ? Infinity : -1;
}

/** Top-left rule for edge a→b with the interior on its E ≥ 0 side (image y down). */
function isTopLeft(xa: number, ya: number, xb: number, yb: number): boolean {
  return yb < ya || (yb === ya && xb > xa);
}

function clampByte(v: number): number {
  return v <= 0 ? 0 : v >= 255 ? 255 : Math.round(v);
}
