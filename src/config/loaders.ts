/**
 * Loaders for each config kind that lives in src/config: calibration, run config, policy manifest.
 * Each validates the whole file, checks the files it references exist, and throws one ConfigError
 * listing every problem. (Robot profiles load in src/robot/loadRobotProfile.ts, which also loads
 * their calibration files.)
 */
import { existsSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import type { CameraCalibration } from "../robot/types.js";
import { ConfigError, issueAt, loadYamlOrThrow } from "./load.js";
import type { ConfigIssue, FieldPath, YamlSource } from "./load.js";
import { calibrationSchema } from "./schemas/calibration.js";
import { policyManifestSchema, MODEL_ROLES } from "./schemas/policyManifest.js";
import type { ModelKey, PolicyManifest } from "./schemas/policyManifest.js";
import { runConfigSchema } from "./schemas/runConfig.js";
import type { RunConfig } from "./schemas/runConfig.js";

/**
 * The repo root a config's relative paths resolve against: the folder above the one holding the
 * file (robots/, launch/ and calibration/<robot>/... all sit one or two levels below it). For
 * `robots/x-one.yaml` and `launch/sim-x-one.yaml` that is the repo root.
 */
export function configRoot(file: string): string {
  return dirname(dirname(resolve(file)));
}

/** Resolves `ref` against `base` unless it is absolute. */
export function resolveRef(base: string, ref: string): string {
  return isAbsolute(ref) ? ref : join(base, ref);
}

/** An issue when the file `ref` (resolved against `base`) does not exist; `what` says what it should be. */
export function missingFileIssue(source: YamlSource, path: FieldPath, base: string, ref: string, what: string, kind: "file" | "dir" = "file"): ConfigIssue | null {
  const full = resolveRef(base, ref);
  const ok = existsSync(full) && (kind === "dir" ? statSync(full).isDirectory() : statSync(full).isFile());
  return ok ? null : issueAt(source, path, `expected an existing ${what}, found missing path "${ref}" (looked for ${full})`);
}

/** Loads a calibration file (camera_info YAML + extrinsics). Throws ConfigError. */
export function loadCalibration(file: string): CameraCalibration {
  return loadYamlOrThrow(file, calibrationSchema).value;
}

/** A loaded run config, with the root its relative paths resolve against. */
export interface LoadedRunConfig {
  config: RunConfig;
  /** Repo root (folder above launch/). */
  root: string;
  /** Absolute path of the robot profile. */
  robotPath: string;
  /** Absolute path of the policy bundle folder, or null. */
  bundlePath: string | null;
  source: YamlSource;
}

/** Loads a run config and checks the robot profile and policy bundle it names exist. Throws ConfigError. */
export function loadRunConfig(file: string, root = configRoot(file)): LoadedRunConfig {
  const { value: config, source } = loadYamlOrThrow(file, runConfigSchema);
  const issues: ConfigIssue[] = [];
  const robot = missingFileIssue(source, ["robot"], root, config.robot, "robot profile");
  if (robot) issues.push(robot);
  if (config.policy.bundle !== null) {
    const b = missingFileIssue(source, ["policy", "bundle"], root, join(config.policy.bundle, "policy.yaml"), "policy bundle (folder with policy.yaml)");
    if (b) issues.push(b);
  }
  if (config.bus.kind === "replay") {
    const r = missingFileIssue(source, ["bus", "file"], root, config.bus.file, "MCAP recording");
    if (r) issues.push(r);
  }
  if (issues.length > 0) throw new ConfigError(issues);
  return {
    config, root, source,
    robotPath: resolveRef(root, config.robot),
    bundlePath: config.policy.bundle === null ? null : resolveRef(root, config.policy.bundle),
  };
}

/** A loaded policy manifest; model paths are resolved against `dir` (the manifest's folder). */
export interface LoadedManifest {
  manifest: PolicyManifest;
  dir: string;
  /** Absolute ONNX paths by model key. */
  modelPaths: Record<ModelKey, string>;
  source: YamlSource;
}

/** Loads `policies/<name>/policy.yaml` and checks its four ONNX files exist. Throws ConfigError. */
export function loadPolicyManifest(file: string): LoadedManifest {
  const { value: manifest, source } = loadYamlOrThrow(file, policyManifestSchema);
  const dir = dirname(resolve(file));
  const issues: ConfigIssue[] = [];
  const keys = Object.keys(MODEL_ROLES) as ModelKey[];
  for (const key of keys) {
    const i = missingFileIssue(source, ["models", key, "file"], dir, manifest.models[key].file, `ONNX file for ${key}`);
    if (i) issues.push(i);
  }
  if (issues.length > 0) throw new ConfigError(issues);
  const modelPaths = Object.fromEntries(keys.map((k) => [k, resolveRef(dir, manifest.models[k].file)])) as LoadedManifest["modelPaths"];
  return { manifest, dir, modelPaths, source };
}
