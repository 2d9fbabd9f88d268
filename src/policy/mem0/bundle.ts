/**
 * Opens a Mem-0 bundle: reads the manifest, opens the four ONNX files with onnxruntime-node and
 * checks their inputs/outputs against the manifest. All problems are reported together.
 */
import { existsSync } from "node:fs";
import { MODEL_ROLES, modelPath, onnxProblems, readManifest, type LoadedManifest, type ModelKey } from "./manifest.js";
import { openSession, sessionValues, type ExecutionProvider, type OpenSession } from "./ortSession.js";

/** A checked bundle with one open session per model file. */
export interface Mem0Bundle {
  loaded: LoadedManifest;
  sessions: Record<ModelKey, OpenSession>;
}

/** Options for opening a bundle. */
export interface OpenBundleOptions {
  provider?: ExecutionProvider;
  log?: (line: string) => void;
}

/**
 * Opens `policies/<name>/policy.yaml` (or the directory holding it). Throws one error listing every
 * problem: `<manifest>:<line>: <file> input "<name>" (<role>): shape [..] expected [..]`.
 */
export async function openMem0Bundle(path: string, opts: OpenBundleOptions = {}): Promise<Mem0Bundle> {
  const manifestFile = path.endsWith(".yaml") || path.endsWith(".yml") ? path : `${path.replace(/\/$/, "")}/policy.yaml`;
  if (!existsSync(manifestFile)) throw new Error(`${manifestFile}: policy manifest not found`);
  const loaded = readManifest(manifestFile);
  const problems: string[] = [];
  const sessions: Partial<Record<ModelKey, OpenSession>> = {};
  for (const key of Object.keys(MODEL_ROLES) as ModelKey[]) {
    const file = modelPath(loaded, key);
    const where = `${loaded.path}:${loaded.lineOf(["models", key, "file"]) ?? 1}: models.${key}.file`;
    if (!existsSync(file)) {
      problems.push(`${where}: ${file} not found`);
      continue;
    }
    try {
      sessions[key] = await openSession(file, opts.provider ?? "cpu", opts.log);
    } catch (err) {
      problems.push(`${where}: onnxruntime could not load ${file}: ${(err as Error).message.split("\n")[0]}`);
      continue;
    }
    const { inputs, outputs } = sessionValues(sessions[key]!.session);
    problems.push(...onnxProblems(loaded, key, inputs, outputs));
  }
  if (problems.length > 0) {
    await Promise.all(Object.values(sessions).map((s) => s?.session.release()));
    throw new Error(problems.join("\n"));
  }
  return { loaded, sessions: sessions as Record<ModelKey, OpenSession> };
}

/** Releases the bundle's sessions. */
export async function closeMem0Bundle(bundle: Mem0Bundle): Promise<void> {
  await Promise.all(Object.values(bundle.sessions).map((s) => s.session.release()));
}
