/**
 * Policy registry: picks the policy family from the bundle manifest's `kind` and loads it. Adding a
 * family: its folder under src/policy/ exporting a `definition`, plus one entry here.
 */
import { ConfigError, loadPolicyManifest, loadRemoteManifest, readManifestKind } from "../config/index.js";
import type { ConfigIssue, PolicyManifest, YamlSource } from "../config/index.js";
import { manifestFileOf, mem0BundleIssues } from "./mem0/bundle.js";
import { definition as mem0, type Mem0Options } from "./mem0/definition.js";
import { learnedPlannerIssues } from "./planner/learned.js";
import { definition as remote, type RemoteOptions } from "./remote/definition.js";
import type { Policy } from "./types.js";

/** Load options shared by families (family-specific fields are ignored by the others). */
export type PolicyLoadOptions = Mem0Options & RemoteOptions;

/** A policy family: its manifest `kind` and how to load a bundle of it. */
export interface PolicyDefinition {
  kind: string;
  load(bundlePath: string, opts: PolicyLoadOptions): Promise<Policy & { close(): Promise<void> }>;
}

const FAMILIES: PolicyDefinition[] = [mem0, remote];

/** What any bundle manifest says about the robot it fits (cameras, layouts, dims), with its YAML source for messages. */
export interface BundleFit {
  manifest: Pick<PolicyManifest, "cameras" | "layout" | "state_dim" | "action_dim">;
  source: YamlSource;
}

/** Reads a bundle's manifest with the schema of its `kind` (mem0 or remote). Throws ConfigError. */
export function readBundleFit(bundlePath: string): BundleFit {
  const file = manifestFileOf(bundlePath);
  if (readManifestKind(file) !== "remote") return loadPolicyManifest(file);
  return loadRemoteManifest(file);
}

/**
 * Every issue of a bundle of any kind, for `engram check` (mem0: manifest, checksums, vocabulary
 * and ONNX files; remote: its manifest and ca_file); empty when it loads.
 */
export async function policyBundleIssues(bundlePath: string): Promise<ConfigIssue[]> {
  const file = manifestFileOf(bundlePath);
  try {
    if (readManifestKind(file) !== "remote") {
      const issues = await mem0BundleIssues(file);
      // The planner section is checked once the rest of the manifest parses (its issues would repeat them).
      return issues.length > 0 ? issues : await learnedPlannerIssues(file);
    }
    loadRemoteManifest(file);
    return [];
  } catch (err) {
    if (err instanceof ConfigError) return err.issues;
    throw err;
  }
}

/** Loads `policies/<name>` (or its policy.yaml) with the family its `kind` names; unknown kinds list the known ones. */
export async function loadPolicy(bundlePath: string, opts: PolicyLoadOptions = {}): Promise<Policy & { close(): Promise<void> }> {
  const file = manifestFileOf(bundlePath);
  const kind = readManifestKind(file);
  const family = FAMILIES.find((f) => f.kind === kind);
  if (!family) throw new Error(`${file}: kind ${JSON.stringify(kind)} is not a known policy family (known: ${FAMILIES.map((f) => f.kind).join(", ")})`);
  return family.load(bundlePath, opts);
}
