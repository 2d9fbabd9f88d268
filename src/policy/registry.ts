/**
 * Policy registry: picks the policy family from the bundle manifest's `kind` and loads it. Adding a
 * family: its folder under src/policy/ exporting a `definition`, plus one entry here.
 */
import { readFileSync } from "node:fs";
import { parse } from "yaml";
import { manifestFileOf } from "./mem0/bundle.js";
import { definition as mem0, type Mem0Options } from "./mem0/definition.js";
import type { Policy } from "./types.js";

/** Load options shared by families (family-specific fields are ignored by the others). */
export type PolicyLoadOptions = Mem0Options;

/** A policy family: its manifest `kind` and how to load a bundle of it. */
export interface PolicyDefinition {
  kind: string;
  load(bundlePath: string, opts: PolicyLoadOptions): Promise<Policy & { close(): Promise<void> }>;
}

const FAMILIES: PolicyDefinition[] = [mem0];

/** Loads `policies/<name>` (or its policy.yaml) with the family its `kind` names; unknown kinds list the known ones. */
export async function loadPolicy(bundlePath: string, opts: PolicyLoadOptions = {}): Promise<Policy & { close(): Promise<void> }> {
  const file = manifestFileOf(bundlePath);
  let kind: unknown;
  try {
    kind = (parse(readFileSync(file, "utf8")) as { kind?: unknown } | null)?.kind;
  } catch (err) {
    throw new Error(`${file}: cannot read policy manifest: ${(err as Error).message.split("\n")[0]}`);
  }
  const family = FAMILIES.find((f) => f.kind === kind);
  if (!family) throw new Error(`${file}: kind ${JSON.stringify(kind)} is not a known policy family (known: ${FAMILIES.map((f) => f.kind).join(", ")})`);
  return family.load(bundlePath, opts);
}
