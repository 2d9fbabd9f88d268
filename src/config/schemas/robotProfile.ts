/**
 * Schema of a robot profile (`robots/<name>.yaml`). It infers exactly `RobotProfile` from
 * ./robotTypes.ts (pinned by a type-level check below). NOTE: zod runs whole-object refinements
 * only when every field is well typed; robotProfilePartialCheck runs the same cross-field checks on
 * the well-typed top-level fields so a file's errors all come at once. Cross-field checks: unique joint names,
 * lower < upper, arm/gripper/home/layout/joint_order names exist, home within limits, joint_order
 * is a permutation of the joints, pose interface has its topics, workspace min < max, kinematics
 * in the workspace frame with a base for every arm. (The model id is checked by loadRobotProfile,
 * which knows the models.)
 */
import { posix } from "node:path";
import { z } from "zod";
import type { RobotProfile } from "./robotTypes.js";
import { addIssue, checkUnique, finiteWithin, name, partialCheck, positiveUpTo, Same, topic, vec3 } from "./common.js";

const jointSpec = z.object({
  name,
  kind: z.enum(["revolute", "gripper"]),
  lower: finiteWithin(100),
  upper: finiteWithin(100),
  velocity_limit: positiveUpTo(50),
}).strict().superRefine((j, ctx) => {
  // Checked per joint so it is reported even when other parts of the file have type errors.
  if (!(j.lower < j.upper)) addIssue(ctx, ["upper"], `expected upper > lower (${j.lower}) for joint "${j.name}"`);
});

const armSpec = z.object({
  name,
  joints: z.array(name).min(1),
  gripper: name,
  base_frame: name,
  ee_frame: name,
}).strict();

const cameraSpec = z.object({
  name,
  topic,
  /** Defaults to `<dirname(topic)>/camera_info`. */
  info_topic: topic.optional(),
  encoding: z.enum(["rgb8", "jpeg"]),
  rate_hz: positiveUpTo(1000),
  frame_id: name,
  calibration: name,
  stale_after_ms: positiveUpTo(60_000),
}).strict().transform((c) => ({ ...c, info_topic: c.info_topic ?? `${posix.dirname(c.topic)}/camera_info` }));

const layoutSpec = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("joint"), names: z.array(name).min(1) }).strict(),
  z.object({
    kind: z.literal("end_effector"),
    arm: name,
    frame: name,
    dims: z.tuple([z.literal("x"), z.literal("y"), z.literal("z"), z.literal("roll"), z.literal("pitch"), z.literal("yaw"), z.literal("gripper")]),
  }).strict(),
]);

const commandSpec = z.object({
  interface: z.enum(["trajectory", "stream", "pose"]),
  joint_topic: topic,
  joint_order: z.array(name).min(1),
  pose_topic: topic.optional(),
  gripper_topic: topic.optional(),
  hold: z.enum(["measured_position", "stop_publishing"]),
}).strict();

const safetySpec = z.object({
  max_step_rad: positiveUpTo(1),            // rad per tick
  gripper_max_step_m: positiveUpTo(0.5),    // m per tick
  workspace: z.object({ frame: name, min: vec3, max: vec3 }).strict(),
  estop_topic: topic,
  resume_topic: topic,
  deadman_topic: topic.optional(),
  joint_state_stale_after_ms: positiveUpTo(10_000),
}).strict();

const kinematicsSpec = z.object({
  model: name,
  frame: name,
  bases: z.record(vec3),
  world: vec3.optional(),
}).strict();

const profileObject = z.object({
  name,
  description: z.string(),
  joints: z.array(jointSpec).min(1),
  arms: z.array(armSpec).min(1),
  home: z.record(finiteWithin(100)),
  joint_state: z.object({ topic, rate_hz: positiveUpTo(10_000) }).strict(),
  cameras: z.array(cameraSpec),
  command: commandSpec,
  teleop: z.object({ leader_topic: topic }).strict(),
  layouts: z.record(layoutSpec),
  control_hz: positiveUpTo(1000),
  safety: safetySpec,
  kinematics: kinematicsSpec.optional(),
  task_robot: name.optional(),
}).strict();

type ProfileShape = z.output<typeof profileObject>;

/**
 * Cross-field checks. Each group runs when the fields it reads are present and well typed, so it
 * also runs on the valid parts of a file that has type errors elsewhere (see robotProfilePartialCheck).
 */
function checkProfile(p: Partial<ProfileShape>, ctx: z.RefinementCtx): void {
  const joints = new Map((p.joints ?? []).map((j) => [j.name, j]));
  const known = (): string => `expected a joint named in joints (${[...joints.keys()].join(", ")})`;
  if (p.joints) checkUnique(ctx, p.joints.map((j) => j.name), (i) => ["joints", i, "name"], "joint name");
  if (p.joints && p.arms) {
    checkUnique(ctx, p.arms.map((a) => a.name), (i) => ["arms", i, "name"], "arm name");
    p.arms.forEach((a, i) => {
      a.joints.forEach((n, k) => {
        const j = joints.get(n);
        if (!j) addIssue(ctx, ["arms", i, "joints", k], known());
        else if (j.kind !== "revolute") addIssue(ctx, ["arms", i, "joints", k], `expected a revolute joint ("${n}" is a ${j.kind})`);
      });
      const g = joints.get(a.gripper);
      if (!g) addIssue(ctx, ["arms", i, "gripper"], known());
      else if (g.kind !== "gripper") addIssue(ctx, ["arms", i, "gripper"], `expected a joint of kind gripper ("${a.gripper}" is ${g.kind})`);
    });
  }
  if (p.joints && p.home) {
    for (const [n, v] of Object.entries(p.home)) {
      const j = joints.get(n);
      if (!j) addIssue(ctx, ["home", n], `expected home keys to be joint names (no joint "${n}")`);
      else if (v < j.lower || v > j.upper) addIssue(ctx, ["home", n], `expected a home position within [${j.lower}, ${j.upper}]`);
    }
    const home = p.home;
    const missingHome = p.joints.filter((j) => !(j.name in home)).map((j) => j.name);
    if (missingHome.length > 0) addIssue(ctx, ["home"], `expected a home position for every joint (missing: ${missingHome.join(", ")})`);
  }
  if (p.cameras) checkUnique(ctx, p.cameras.map((c) => c.name), (i) => ["cameras", i, "name"], "camera name");
  if (p.joints && p.arms && p.layouts) {
    const armNames = p.arms.map((a) => a.name);
    for (const [ln, layout] of Object.entries(p.layouts)) {
      if (layout.kind === "joint") {
        layout.names.forEach((n, k) => { if (!joints.has(n)) addIssue(ctx, ["layouts", ln, "names", k], known()); });
        checkUnique(ctx, layout.names, (k) => ["layouts", ln, "names", k], "joint in the layout");
      } else if (!armNames.includes(layout.arm)) {
        addIssue(ctx, ["layouts", ln, "arm"], `expected an arm name (${armNames.join(", ")})`);
      }
    }
  }
  if (p.joints && p.command) {
    const order = p.command.joint_order;
    order.forEach((n, k) => { if (!joints.has(n)) addIssue(ctx, ["command", "joint_order", k], known()); });
    checkUnique(ctx, order, (k) => ["command", "joint_order", k], "joint in joint_order");
    const absent = p.joints.filter((j) => !order.includes(j.name)).map((j) => j.name);
    if (absent.length > 0) addIssue(ctx, ["command", "joint_order"], `expected a permutation of all joints (missing: ${absent.join(", ")})`);
  }
  if (p.command?.interface === "pose") {
    if (!p.command.pose_topic) addIssue(ctx, ["command", "pose_topic"], "expected a pose_topic when interface is \"pose\"");
    if (!p.command.gripper_topic) addIssue(ctx, ["command", "gripper_topic"], "expected a gripper_topic when interface is \"pose\"");
  }
  if (p.kinematics && p.arms) {
    const bases = p.kinematics.bases;
    for (const a of p.arms) {
      if (!Object.hasOwn(bases, a.base_frame)) {
        const has = Object.keys(bases).join(", ") || "none";
        const want = `expected an entry for arm "${a.name}" base_frame "${a.base_frame}" (has: ${has})`;
        addIssue(ctx, ["kinematics", "bases"], want);
      }
    }
  }
  if (p.kinematics && p.safety && p.kinematics.frame !== p.safety.workspace.frame) {
    const ws = p.safety.workspace.frame;
    const want = `expected the workspace frame "${ws}" (safety.workspace.frame), so the box binds the FK's points`;
    addIssue(ctx, ["kinematics", "frame"], want);
  }
  if (p.safety) {
    const ws = p.safety.workspace;
    for (let a = 0; a < 3; a++) {
      if (!(ws.min[a]! < ws.max[a]!)) addIssue(ctx, ["safety", "workspace", "max", a], `expected max > min (${ws.min[a]}) on axis ${"xyz"[a]}`);
    }
  }
}

/** Zod schema of a robot profile YAML; its output type is exactly RobotProfile. */
export const robotProfileSchema = profileObject.superRefine(checkProfile);

/** The cross-field checks on the well-typed top-level fields of a profile with type errors elsewhere. */
export const robotProfilePartialCheck = partialCheck(profileObject, checkProfile);

// Pin the schema to the contract type: a compile error here means they drifted apart.
const _pinned: Same<z.output<typeof robotProfileSchema>, RobotProfile> = true;
void _pinned;
