/**
 * What every remote policy builds from its manifest (pure but for reading `ca_file`): the connection,
 * the PolicySpec, the robot's joint order of the action layout.
 */
import type { RemotePolicyManifest } from "../../config/index.js";
import { layoutNames } from "../../robot/layout.js";
import type { LayoutSpec, RobotProfile } from "../../robot/types.js";
import type { PolicySpec } from "../types.js";
import { PolicyConnection } from "./PolicyConnection.js";
import { readCa, type RemoteOptions } from "./RemotePolicy.js";

/**
 * The connection to `url` with the manifest's token (from `token_env`), CA, timeouts and backoff;
 * its lifecycle goes to `onRemoteEvent` as `connection` events. Throws naming the manifest when
 * `token_env` is not set.
 */
export function remoteConnection(
  m: RemotePolicyManifest, where: string, url: string, opts: RemoteOptions,
): PolicyConnection {
  const token = m.token_env ? (opts.env ?? process.env)[m.token_env] : undefined;
  if (m.token_env && !token) {
    const what = `environment variable ${m.token_env} is not set (it holds the policy server's token)`;
    throw new Error(`${where}: token_env: ${what}`);
  }
  return new PolicyConnection({
    url, token, ca: m.ca_file ? readCa(m.ca_file, where) : undefined, timeoutMs: m.timeout_ms,
    reconnect: { initialMs: m.reconnect.initial_ms, maxMs: m.reconnect.max_ms },
    connectTimeoutMs: m.connect_timeout_ms,
    onEvent: (e) => opts.onRemoteEvent?.({
      kind: "connection", what: e.kind, url: e.url, reason: e.reason, attempt: e.attempt,
    }),
  });
}

/** The PolicySpec a remote manifest declares (cameras, image size and normalization, layout, horizon, rate). */
export function remoteSpec(m: RemotePolicyManifest): PolicySpec {
  const { mean, std } = m.image.pixel_normalization;
  return {
    name: m.name, cameras: [...m.cameras], imageSize: { width: m.image.width, height: m.image.height },
    layout: m.layout.action, horizon: m.horizon, controlHz: m.control_hz,
    pixelNormalization: { mean: [...mean], std: [...std] },
  };
}

/** The profile's joints of a joint layout, in the profile's order (undefined: keep the layout's order). */
export function robotOrderOf(layout: LayoutSpec, robot: RobotProfile | undefined): string[] | undefined {
  if (!robot || layout.kind !== "joint") return undefined;
  const names = layoutNames(layout);
  return robot.joints.map((j) => j.name).filter((n) => names.includes(n));
}
