/** The remote policy family, as the policy registry finds it by the manifest's `kind: remote`. */
import { loadRemoteManifest } from "../../config/index.js";
import { manifestFileOf } from "../mem0/bundle.js";
import { RemotePolicy, type RemoteOptions } from "./RemotePolicy.js";
import { RoboMMEPolicy } from "./RoboMMEPolicy.js";

export type { RemoteOptions } from "./RemotePolicy.js";

/**
 * Reads a `kind: remote` policy.yaml (errors name file:line:field, ca_file included) and builds the
 * policy its `protocol` names (mem0 and openpi: RemotePolicy; robomme: RoboMMEPolicy); connects lazily.
 */
export function loadRemotePolicy(bundlePath: string, opts: RemoteOptions = {}): RemotePolicy | RoboMMEPolicy {
  const file = manifestFileOf(bundlePath);
  const { manifest } = loadRemoteManifest(file);
  if (manifest.protocol === "robomme") return new RoboMMEPolicy(manifest, file, opts);
  return new RemotePolicy(manifest, file, opts);
}

/** Registry entry for remote bundles. */
export const definition = {
  kind: "remote",
  load: async (bundlePath: string, opts: RemoteOptions) => loadRemotePolicy(bundlePath, opts),
};
