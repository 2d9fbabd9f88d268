/**
 * ROS 2 schema texts in the form rosbag2 stores in MCAP Schema records (encoding `ros2msg`): the
 * type's own .msg text, then for every dependency (depth first, each once, sorted by name within a
 * type) a line of 80 '=' followed by `MSG: pkg/Name` and that type's .msg text. The .msg texts come
 * from @foxglove/rosmsg-msgs-common (msgdefs/ros2jazzy), the same files ROS 2 Jazzy installs.
 */
import { readFileSync, existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { KnownRosType } from "./types.js";

/** Every type in KnownRosType, in one list (for tests and `isKnownType`). */
export const KNOWN_TYPES: readonly KnownRosType[] = [
  "std_msgs/msg/String",
  "std_msgs/msg/Bool",
  "std_msgs/msg/Float32",
  "std_msgs/msg/Header",
  "builtin_interfaces/msg/Time",
  "sensor_msgs/msg/Image",
  "sensor_msgs/msg/CompressedImage",
  "sensor_msgs/msg/CameraInfo",
  "sensor_msgs/msg/JointState",
  "trajectory_msgs/msg/JointTrajectory",
  "trajectory_msgs/msg/JointTrajectoryPoint",
  "geometry_msgs/msg/PoseStamped",
  "rosgraph_msgs/msg/Clock",
];

/** True when `type` is one of the types this project ships a schema for. */
export function isKnownType(type: string): type is KnownRosType {
  return (KNOWN_TYPES as readonly string[]).includes(type);
}

/** The rosbag2 dependency delimiter: 80 '=' then `MSG: <pkg/Name>`. */
const DELIMITER = "=".repeat(80);
const SECTION_SPLIT = new RegExp(`\\n${DELIMITER}\\nMSG: `);
const PRIMITIVES = new Set([
  "bool", "byte", "char", "float32", "float64", "int8", "uint8", "int16", "uint16",
  "int32", "uint32", "int64", "uint64", "string", "wstring",
]);

let msgdefsRoot: string | undefined;
function msgdefsDir(): string {
  if (msgdefsRoot === undefined) {
    const require = createRequire(import.meta.url);
    const pkg = require.resolve("@foxglove/rosmsg-msgs-common/package.json");
    msgdefsRoot = join(dirname(pkg), "msgdefs", "ros2jazzy");
  }
  return msgdefsRoot;
}

/** Splits `pkg/msg/Name` or `pkg/Name` into its package and name; undefined when malformed. */
export function splitTypeName(type: string): { pkg: string; name: string } | undefined {
  const parts = type.split("/");
  if (parts.length === 3 && parts[1] === "msg" && parts[0] && parts[2]) return { pkg: parts[0], name: parts[2] };
  if (parts.length === 2 && parts[0] && parts[1]) return { pkg: parts[0], name: parts[1] };
  return undefined;
}

/** The type's own .msg text (without dependency sections), or undefined when no such file ships. */
function ownText(pkg: string, name: string): string | undefined {
  const file = join(msgdefsDir(), pkg, "msg", `${name}.msg`);
  if (!existsSync(file)) return undefined;
  // NOTE: msgdefs files end with one extra "\n" after the last section; rosbag2 stores the .msg
  // file as installed, so that newline is dropped (checked against real rosbag2 recordings).
  const raw = readFileSync(file, "utf8");
  const sections = raw.split(SECTION_SPLIT);
  return sections.length === 1 ? raw.replace(/\n$/, "") : sections[0]!;
}

/** The complex types a .msg text refers to, as sorted `pkg/Name` (what rosbag2 writes after MSG:). */
export function dependenciesOf(text: string, ownPkg: string): string[] {
  const deps = new Set<string>();
  for (const raw of text.split("\n")) {
    const line = raw.replace(/#.*/, "").trim();
    if (line === "") continue;
    const typeToken = line.split(/\s+/)[0]!;
    const base = typeToken.replace(/\[.*\]$/, "").replace(/<=\d+$/, "");
    if (PRIMITIVES.has(base)) continue;
    const parsed = splitTypeName(base);
    deps.add(parsed ? `${parsed.pkg}/${parsed.name}` : `${ownPkg}/${base}`);
  }
  return [...deps].sort();
}

const schemaCache = new Map<string, string>();

/**
 * The rosbag2-style concatenated schema text for a type available in msgdefs/ros2jazzy (every
 * KnownRosType, and other common types such as rcl_interfaces/msg/Log). Cached.
 * Throws naming the type (and the missing dependency) when a .msg file is not shipped.
 */
export function schemaTextFor(type: string): string {
  const cached = schemaCache.get(type);
  if (cached !== undefined) return cached;
  const root = splitTypeName(type);
  if (!root) throw new Error(`message type "${type}" is malformed: expected "pkg/msg/Name"`);
  const rootText = ownText(root.pkg, root.name);
  if (rootText === undefined) {
    throw new Error(`message type "${type}" has no bundled schema (msgdefs/ros2jazzy/${root.pkg}/msg/${root.name}.msg not found)`);
  }
  const seen = new Set<string>();
  const append = (pkg: string, text: string): string => {
    let out = text;
    for (const dep of dependenciesOf(text, pkg)) {
      if (seen.has(dep)) continue;
      seen.add(dep);
      const d = splitTypeName(dep)!;
      const depText = ownText(d.pkg, d.name);
      if (depText === undefined) {
        throw new Error(`message type "${type}" depends on "${dep}", whose schema is not bundled`);
      }
      out += `\n${DELIMITER}\nMSG: ${dep}\n` + append(d.pkg, depText);
    }
    return out;
  };
  const full = append(root.pkg, rootText);
  schemaCache.set(type, full);
  return full;
}
