/** Small zod building blocks shared by the config schemas. */
import { z } from "zod";

/** A finite number (YAML `.inf` and `.nan` are refused). */
export const finite = z.number().finite();

/** xyz in metres. */
export const vec3 = z.tuple([finite, finite, finite]);

/** Quaternion [x, y, z, w]; checked to be unit length within 1e-3. */
export const quatXyzw = z
  .tuple([finite, finite, finite, finite])
  .refine((q) => Math.abs(Math.hypot(...q) - 1) < 1e-3, { message: "expected a unit quaternion [x, y, z, w] (norm 1 ± 1e-3)" });

/** A ROS topic name: starts with "/", no spaces. */
export const topic = z.string().regex(/^\/[A-Za-z0-9_~/{}]*$/, "expected a ROS topic name starting with \"/\" (letters, digits, _ and /)");

/** A non-empty identifier-like name. */
export const name = z.string().min(1);

/** Adds a custom issue at `path` (relative to the refined object). */
export function addIssue(ctx: z.RefinementCtx, path: Array<string | number>, message: string): void {
  ctx.addIssue({ code: z.ZodIssueCode.custom, path, message });
}

/** Reports every duplicated string in `values` (at `path(i)` for each later occurrence). */
export function checkUnique(ctx: z.RefinementCtx, values: string[], path: (i: number) => Array<string | number>, what: string): void {
  const seen = new Map<string, number>();
  values.forEach((v, i) => {
    const first = seen.get(v);
    if (first !== undefined) addIssue(ctx, path(i), `expected a unique ${what} (already used at index ${first})`);
    else seen.set(v, i);
  });
}

/** Type-level check that two types are mutually assignable (used to pin schemas to contract types). */
export type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
