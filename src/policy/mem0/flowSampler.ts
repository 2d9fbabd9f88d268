/**
 * Flow-matching sampler (pure given a velocity function): seeded Gaussian noise at τ=0, then N Euler
 * steps x_{k+1} = x_k + (1/N) v(x_k, τ_k) with τ_k = k/N, ending at τ=1 (the action sample).
 */

/** Velocity field: x (flattened chunk) at flow time τ ∈ [0, 1) → dx/dτ, same length. */
export type VelocityFn = (x: Float32Array, tau: number) => Promise<Float32Array>;

/** 32-bit seed for a chunk: mixes the episode seed and the chunk index (splitmix32-style). */
export function chunkSeed(episodeSeed: number, chunkIndex: number): number {
  let h = (Math.imul(episodeSeed | 0, 0x9e3779b1) ^ Math.imul(chunkIndex | 0, 0x85ebca6b)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x21f0aaad) >>> 0;
  h = Math.imul(h ^ (h >>> 15), 0x735a2d97) >>> 0;
  return (h ^ (h >>> 15)) >>> 0;
}

/** Seeded uniform PRNG in [0, 1) (mulberry32). Same seed → same sequence on every platform. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `n` standard normal samples from `seed` (Box-Muller on mulberry32). */
export function gaussianNoise(n: number, seed: number): Float32Array {
  const uniform = mulberry32(seed);
  const out = new Float32Array(n);
  for (let i = 0; i < n; i += 2) {
    const u1 = 1 - uniform(); // (0, 1]: log stays finite
    const u2 = uniform();
    const r = Math.sqrt(-2 * Math.log(u1));
    out[i] = r * Math.cos(2 * Math.PI * u2);
    if (i + 1 < n) out[i + 1] = r * Math.sin(2 * Math.PI * u2);
  }
  return out;
}

/**
 * Integrates the flow from `noise` over `steps` Euler steps. The input is not modified. Throws when
 * the velocity has the wrong length; a non-finite result is left for the caller's output check.
 */
export async function integrateFlow(noise: Float32Array, steps: number, velocity: VelocityFn): Promise<Float32Array> {
  if (!Number.isInteger(steps) || steps < 1) throw new Error(`flow steps N=${steps}: expected an integer >= 1`);
  const x = Float32Array.from(noise);
  const dt = 1 / steps;
  for (let k = 0; k < steps; k++) {
    const v = await velocity(x, k * dt);
    if (v.length !== x.length) throw new Error(`flow velocity length ${v.length} at step ${k}, expected ${x.length}`);
    for (let i = 0; i < x.length; i++) x[i] += dt * v[i];
  }
  return x;
}
