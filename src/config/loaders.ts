/**
 * Loaders for each config kind that lives in src/config: calibration, run config, policy manifests
 * (mem0 and remote).
 * Each validates the whole file, checks the files it references exist, and throws one ConfigError
 * listing every problem. (Robot profiles load in src/robot/loadRobotProfile.ts, which also loads
 * their calibration files.)
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import type { CameraCalibration } from "./schemas/robotTypes.js";
import { ConfigError, issueAt, loadYamlOrThrow, parseYaml, readConfigText } from "./load.js";
import type { ConfigIssue, FieldPath, YamlSource } from "./load.js";
import { calibrationSchema } from "./schemas/calibration.js";
import { policyManifestSchema, MODEL_ROLES } from "./schemas/policyManifest.js";
import type { ModelKey, PolicyManifest } from "./schemas/policyManifest.js";
import { remotePolicySchema, type RemotePolicyManifest } from "./schemas/remotePolicy.js";
import { runConfigSchema } from "./schemas/runConfig.js";
import type { RunConfig } from "./schemas/runConfig.js";

/**
 * The folder a config's relative paths resolve against: the one holding the file, so a config
 * keeps working when copied elsewhere with what it names (`launch/sim-x-one.yaml` names
 * `../robots/x-one.yaml`, `robots/x-one.yaml` names `../calibration/x-one/head.yaml`).
 */
export function configDir(file: string): string {
  return dirname(resolve(file));
}

/** Resolves `ref` against `base` unless it is absolute. */
export function resolveRef(base: string, ref: string): string {
  return isAbsolute(ref) ? ref : join(base, ref);
}

/**
 * An issue when the file `ref` (resolved against `base`) does not exist; `what` says what it should
 * be. The message names the path as written and as resolved (relative paths: against `base`).
 */
export function missingFileIssue(source: YamlSource, path: FieldPath, base: string, ref: string, what: string, kind: "file" | "dir" = "file"): ConfigIssue | null {
  const full = resolveRef(base, ref);
  const ok = existsSync(full) && (kind === "dir" ? statSync(full).isDirectory() : statSync(full).isFile());
  if (ok) return null;
  const how = isAbsolute(ref) ? "" : `, relative to ${base}`;
  return issueAt(source, path, `expected an existing ${what}, found missing path "${ref}" (looked for ${full}${how})`);
}

/** Loads a calibration file (camera_info YAML + extrinsics). Throws ConfigError. */
export function loadCalibration(file: string): CameraCalibration {
  return loadYamlOrThrow(file, calibrationSchema).value;
}

/** A loaded run config, with its referenced paths resolved against its folder. */
export interface LoadedRunConfig {
  config: RunConfig;
  /** The config's own folder: its relative paths (robot, policy.bundle, bus.file) resolve against it. */
  dir: string;
  /** The folder above `dir` (the repo root for launch/*.yaml), under which the default runs/ folder goes. */
  root: string;
  /** Absolute path of the robot profile. */
  robotPath: string;
  /** Absolute path of the policy bundle folder, or null. */
  bundlePath: string | null;
  /** Absolute path of the demonstration MCAP (`demonstration.source: mcap`), or null. */
  demonstrationPath: string | null;
  /** Absolute path of the run's history store (`history`), or null. */
  historyPath: string | null;
  /** The interference run's k, frames per distractor and pool (an absolute store path), or null. */
  interference: { k: number; frames: number; pool: string } | null;
  source: YamlSource;
}

/** Loads a run config and checks the robot profile, policy bundle and recording it names exist. Throws ConfigError. */
export function loadRunConfig(file: string): LoadedRunConfig {
  const { value: config, source } = loadYamlOrThrow(file, runConfigSchema);
  const dir = configDir(file);
  const issues: ConfigIssue[] = [];
  const robot = missingFileIssue(source, ["robot"], dir, config.robot, "robot profile");
  if (robot) issues.push(robot);
  if (config.policy.bundle !== null) {
    const manifest = join(config.policy.bundle, "policy.yaml");
    const b = missingFileIssue(source, ["policy", "bundle"], dir, manifest, "policy bundle (folder with policy.yaml)");
    if (b) issues.push(b);
  }
  if (config.bus.kind === "replay") {
    const r = missingFileIssue(source, ["bus", "file"], dir, config.bus.file, "MCAP recording");
    if (r) issues.push(r);
  }
  const demo = config.demonstration;
  if (demo?.source === "mcap") {
    const d = missingFileIssue(source, ["demonstration", "path"], dir, demo.path, "demonstration MCAP");
    if (d) issues.push(d);
  }
  if (issues.length > 0) throw new ConfigError(issues);
  return {
    config, dir, root: dirname(dir), source,
    demonstrationPath: demo?.source === "mcap" ? resolveRef(dir, demo.path) : null,
    historyPath: config.history === null ? null : resolveRef(dir, config.history),
    interference: config.interference && { ...config.interference, pool: resolveRef(dir, config.interference.pool) },
    robotPath: resolveRef(dir, config.robot),
    bundlePath: config.policy.bundle === null ? null : resolveRef(dir, config.policy.bundle),
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

/**
 * The `kind` a policy manifest declares (mem0, remote, ...), before its family's schema is chosen.
 * Throws a ConfigError at the file's line and column when it cannot be read or is malformed YAML.
 */
export function readManifestKind(file: string): unknown {
  const read = readConfigText(file);
  if ("issue" in read) throw new ConfigError([read.issue]);
  const { source, issues } = parseYaml(file, read.text);
  if (issues.length > 0) throw new ConfigError(issues);
  const data = source.data;
  return data !== null && typeof data === "object" ? (data as { kind?: unknown }).kind : undefined;
}

/** A loaded `kind: remote` manifest. */
export interface LoadedRemoteManifest {
  manifest: RemotePolicyManifest;
  source: YamlSource;
  /** Absolute path of ca_file (resolved against the manifest's folder), or null for the system CAs. */
  caPath: string | null;
}

/**
 * Loads a `kind: remote` policy.yaml and checks its ca_file holds a PEM certificate, at its line. Throws
 * ConfigError.
 */
export function loadRemoteManifest(file: string): LoadedRemoteManifest {
  const { value: manifest, source } = loadYamlOrThrow(file, remotePolicySchema);
  if (manifest.ca_file === null) return { manifest, source, caPath: null };
  const caPath = resolveRef(configDir(file), manifest.ca_file);
  const issue = pemIssue(source, caPath);
  if (issue) throw new ConfigError([issue]);
  return { manifest, source, caPath };
}

/** An issue at `ca_file` when `path` cannot be read or holds no PEM certificate. */
function pemIssue(source: YamlSource, path: string): ConfigIssue | null {
  const expected = "expected the PEM of the server's CA (or its self-signed certificate), "
    + "relative to this manifest's folder";
  let pem: Buffer;
  try {
    pem = readFileSync(path);
  } catch (err) {
    return issueAt(source, ["ca_file"], `cannot read ${path}: ${(err as Error).message} (${expected})`);
  }
  if (pem.includes("-----BEGIN CERTIFICATE-----")) return null;
  return issueAt(source, ["ca_file"], `${path} holds no PEM certificate (-----BEGIN CERTIFICATE-----); ${expected}`);
}
