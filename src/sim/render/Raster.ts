/**
 * Triangle scan conversion for the rasterizer (rasterize.ts): bounding box clipped to the image,
 * exact integer edge functions on a 1/SUB-pixel grid with the top-left fill rule, per-row spans
 * solved from the edge functions, and a z-buffer of 1/z (linear in screen space, so interpolating
 * it is perspective-correct). Pixel (u, v) is sampled at its centre, integer coordinates (ROS).
 */

const SUB = 16; // sub-pixel steps per pixel for the integer edge functions

/** Scan-converts screen-space triangles into one frame's buffers with the current flat colour. */
export class Raster {
  /** Triangles that reached scan conversion (non-empty bounding box on the image) since construction. */
  count = 0;
  private r = 0;
  private g = 0;
  private b = 0;
  private readonly W: number;
  private readonly H: number;
  private readonly rgb: Uint8Array;
  private readonly zbuf: Float32Array;

  /** `depth` is the z-buffer, holding 1/z (0 = nothing drawn yet) while a frame is rendered. */
  constructor(frame: { width: number; height: number; rgb: Uint8Array; depth: Float32Array }) {
    this.W = frame.width; this.H = frame.height; this.rgb = frame.rgb; this.zbuf = frame.depth;
  }

  /** Sets the flat colour for the following triangles (0..255 per channel, rounded and clamped). */
  setColor(r: number, g: number, b: number): void {
    this.r = clampByte(r); this.g = clampByte(g); this.b = clampByte(b);
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
    const rgb = this.rgb, zbuf = this.zbuf, r = this.r, g = this.g, b = this.b;
    for (let y = minY; y <= maxY; y++) {
      // The row's covered span, solved from the three edge functions (exact: see spanLo/spanHi).
      const xs = minX + Math.max(0, spanLo(e12, dx12), spanLo(e20, dx20), spanLo(e01, dx01));
      const xe = minX + Math.min(maxX - minX, spanHi(e12, dx12), spanHi(e20, dx20), spanHi(e01, dx01));
      let w = wRow + dwx * (xs - minX);
      const wEnd = w + dwx * (xe - xs), end = y * W + xe;
      if (w >= wLo && w <= wHi && wEnd >= wLo && wEnd <= wHi) { // linear, so the whole span is in range
        for (let i = y * W + xs; i <= end; i++, w += dwx) {
          if (w > zbuf[i]) { zbuf[i] = w; const o = 3 * i; rgb[o] = r; rgb[o + 1] = g; rgb[o + 2] = b; }
        }
      } else {
        for (let i = y * W + xs; i <= end; i++, w += dwx) {
          const wc = w < wLo ? wLo : w > wHi ? wHi : w;
          if (wc > zbuf[i]) { zbuf[i] = wc; const o = 3 * i; rgb[o] = r; rgb[o + 1] = g; rgb[o + 2] = b; }
        }
      }
      e12 += dy12; e20 += dy20; e01 += dy01; wRow += gB;
    }
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
