/**
 * The sim's sensor publishers: JointState at the profile rate, every camera (rendered from its
 * calibration, rgb8 Image or JPEG CompressedImage) with its CameraInfo, and /clock. Each stream
 * publishes at the first physics step at or after its next due time, so its mean rate is exact.
 */
import { RELIABLE_QOS, type Bus } from "../../bus/types.js";
import { SIM_SENSOR_QOS } from "../../msgs/qos.js";
import { encode } from "../../msgs/codec.js";
import { timeFromNs, type Header } from "../../msgs/types.js";
import { cameraInfoFromCalibration } from "../../robot/calibration.js";
import type { CameraCalibration, CameraSpec, RobotProfile } from "../../robot/types.js";
import { cameraFromCalibration } from "../render/camera.js";
import { compressedImageFromRgb, imageFromRgb, JPEG_FORMAT_FROM_RGB8 } from "../../msgs/image.js";
import { createRenderFrame, renderCamera, type RenderCamera, type RenderFrame } from "../render/rasterize.js";
import { StaticLayer } from "../render/StaticLayer.js";
import type { RenderPool } from "./renderPool.js";
import type { SimWorld } from "../world/SimWorld.js";
import type { RenderMesh } from "../world/types.js";


interface Stream {
  periodNs: number;
  /** Next due time, relative to the episode epoch, in (fractional) ns. */
  nextNs: number;
  publish(stampNs: bigint, meshes: () => RenderMesh[]): Promise<void> | void;
  /** Camera streams may be dropped when real time falls behind. */
  camera: boolean;
}

/** Options of the sensor set. */
export interface SensorOptions {
  bus: Bus;
  world: SimWorld;
  profile: RobotProfile;
  calibrations: Record<string, CameraCalibration>;
  /** Render and publish cameras (default true). */
  cameras?: boolean;
  /** /clock rate, Hz (default 100). 0 disables /clock. */
  clockHz?: number;
  jpegQuality?: number;
  /** Render (and JPEG-encode) camera frames in these worker threads instead of this one. */
  renderPool?: RenderPool;
}

/** A rendered camera image with its spec, for snapshots and the bench. */
export interface CameraShot { camera: CameraSpec; frame: RenderFrame }

/** Publishes everything the robot's drivers would, on schedule. */
export class SensorPublishers {
  private readonly streams: Stream[] = [];
  private readonly frames = new Map<string, RenderFrame>();
  /** Per camera on a fixed frame (the head camera), its fixed meshes kept drawn between frames. */
  readonly layers = new Map<string, StaticLayer>();
  private readonly inflight = new Set<Promise<void>>();
  /** Render time per camera frame, ms (for the bench). */
  readonly renderMs: number[] = [];

  constructor(private readonly o: SensorOptions) {
    const { bus, world, profile } = o;
    const names = world.jointNames();
    const js = bus.advertise(profile.joint_state.topic, "sensor_msgs/msg/JointState", RELIABLE_QOS);
    this.add(profile.joint_state.rate_hz, (stampNs) => {
      js(encode("sensor_msgs/msg/JointState", {
        header: { stamp: timeFromNs(stampNs), frame_id: "" },
        name: names, position: world.jointPositions(), velocity: world.jointVelocities(), effort: [],
      }));
    });
    if (o.cameras ?? true) for (const cam of profile.cameras) this.addCamera(cam);
    const clockHz = o.clockHz ?? 100;
    if (clockHz > 0) {
      const clock = bus.advertise("/clock", "rosgraph_msgs/msg/Clock", { ...RELIABLE_QOS, depth: 1 });
      this.add(clockHz, (stampNs) => clock(encode("rosgraph_msgs/msg/Clock", { clock: timeFromNs(stampNs) })));
    }
  }

  private add(rateHz: number, publish: Stream["publish"], camera = false): void {
    if (!(rateHz > 0)) throw new Error(`sim sensors: rate ${rateHz} Hz must be positive`);
    this.streams.push({ periodNs: 1e9 / rateHz, nextNs: 0, publish, camera });
  }

  private addCamera(cam: CameraSpec): void {
    const cal = this.o.calibrations[cam.name];
    if (!cal) throw new Error(`sim sensors: no calibration loaded for camera "${cam.name}" (${cam.calibration})`);
    const { bus } = this.o;
    if (this.o.world.frameFixed(cal.extrinsics.parent_frame)) this.layers.set(cam.name, new StaticLayer());
    const info = bus.advertise(cam.info_topic, "sensor_msgs/msg/CameraInfo", SIM_SENSOR_QOS);
    const image = cam.encoding === "rgb8"
      ? bus.advertise(cam.topic, "sensor_msgs/msg/Image", SIM_SENSOR_QOS)
      : bus.advertise(cam.topic, "sensor_msgs/msg/CompressedImage", SIM_SENSOR_QOS);
    // Frames of one camera publish in order; frames from the render pool arrive while the sim
    // steps on, and `flush()` (called at the end of every advance) waits for them.
    let previous: Promise<void> = Promise.resolve();
    const slot = this.o.profile.cameras.indexOf(cam);
    const quality = this.o.jpegQuality ?? 90;
    const chain = (done: Promise<void>): void => {
      previous = done;
      this.inflight.add(done);
      void done.finally(() => this.inflight.delete(done)).catch(() => undefined);
    };
    this.add(cam.rate_hz, (stampNs, meshes) => {
      const header: Header = { stamp: timeFromNs(stampNs), frame_id: cam.frame_id };
      const infoBytes = encode("sensor_msgs/msg/CameraInfo", cameraInfoFromCalibration(cal, cam.frame_id, header.stamp));
      const pool = this.o.renderPool;
      if (pool) {
        // Rendered (and JPEG-encoded) in a worker; published in order once done.
        const job = pool.render(slot, cam.name, meshes(), this.renderCameraOf(cam), cam.encoding === "jpeg" ? quality : null, this.layers.has(cam.name));
        chain(Promise.all([job, previous]).then(([d]) => {
          this.noteRenderMs(d.renderMs);
          image(cam.encoding === "rgb8"
            ? encode("sensor_msgs/msg/Image", { header, height: d.height, width: d.width, encoding: "rgb8", is_bigendian: 0, step: d.width * 3, data: d.data })
            : encode("sensor_msgs/msg/CompressedImage", { header, format: JPEG_FORMAT_FROM_RGB8, data: d.data }));
          info(infoBytes);
        }));
        return;
      }
      const frame = this.render(cam, meshes(), true); // its rgb is valid until the next render: encoded now
      if (cam.encoding === "rgb8") {
        image(encode("sensor_msgs/msg/Image", imageFromRgb(frame.rgb, frame.width, frame.height, header, { copy: false })));
        info(infoBytes);
        return;
      }
      const jpeg = compressedImageFromRgb(frame.rgb, frame.width, frame.height, header, quality); // copies rgb now
      chain(Promise.all([jpeg, previous]).then(([msg]) => {
        image(encode("sensor_msgs/msg/CompressedImage", msg));
        info(infoBytes);
      }));
    }, true);
  }

  /** Resolves once every camera frame started so far is published; rejects if an encode failed. */
  async flush(): Promise<void> {
    while (this.inflight.size > 0) await Promise.all([...this.inflight]);
  }

  /** The render camera of `cam` at the current pose of its parent frame. */
  private renderCameraOf(cam: CameraSpec): RenderCamera {
    const cal = this.o.calibrations[cam.name]!;
    const parent = this.o.world.framePose(cal.extrinsics.parent_frame);
    if (!parent) throw new Error(`sim camera "${cam.name}": extrinsics parent_frame "${cal.extrinsics.parent_frame}" is not a frame of the sim (${cam.calibration})`);
    return cameraFromCalibration(cal, parent);
  }

  private noteRenderMs(ms: number): void {
    this.renderMs.push(ms);
    if (this.renderMs.length > 10_000) this.renderMs.splice(0, 5_000);
  }

  /**
   * Renders one camera's rgb from the current world state on this thread (buffers reused per camera;
   * no metric depth). With `borrow` the frame's rgb is the renderer's own memory, not copied: valid
   * only until the next render (see renderCamera).
   */
  render(cam: CameraSpec, meshes: RenderMesh[], borrow = false): RenderFrame {
    const camera = this.renderCameraOf(cam);
    let frame = this.frames.get(cam.name);
    if (!frame) this.frames.set(cam.name, (frame = createRenderFrame(camera.width, camera.height)));
    const t0 = performance.now();
    const out = renderCamera(meshes, camera, frame, { depth: false, layer: this.layers.get(cam.name), borrow });
    this.noteRenderMs(performance.now() - t0);
    return out;
  }

  /** Renders every camera now (snapshots). */
  renderAll(): CameraShot[] {
    const meshes = this.o.world.meshes();
    return this.o.profile.cameras.map((camera) => ({ camera, frame: this.render(camera, meshes) }));
  }

  /** Restarts every schedule (episode reset): everything is due at the first step. */
  restart(): void {
    for (const s of this.streams) s.nextNs = 0;
  }

  /** Camera frames skipped because real time was behind (see publishDue's dropCameras). */
  droppedFrames = 0;
  /** Camera frames not rendered because a later frame of the same camera superseded them within one advance (see publishDue's untilNs). */
  supersededFrames = 0;

  /**
   * Publishes what is due at episode-relative time `tNs` (stamped `stampNs`); returns how many
   * streams published. With `dropCameras` (real-time mode running late) due camera frames are
   * skipped, as a camera driver under load drops frames, so the sim can catch up with the wall clock.
   * With `untilNs` (lock-step, the episode-relative time of the last physics step of the current
   * advance) a camera frame whose successor is also due by then is neither rendered nor published:
   * only the last frame of each camera within the advance goes out, with the stamp and pixels it
   * would have had, so a control tick at the advance's end reads exactly the frame it reads at full rate.
   */
  async publishDue(tNs: number, stampNs: bigint, dropCameras = false, untilNs?: number): Promise<number> {
    let meshes: RenderMesh[] | null = null;
    const lazyMeshes = () => (meshes ??= this.o.world.meshes());
    const pending: (Promise<void> | void)[] = [];
    for (const s of this.streams) {
      if (tNs + 1 < s.nextNs) continue; // 1 ns slack for float rounding
      s.nextNs += s.periodNs;
      if (s.nextNs <= tNs) s.nextNs = tNs + s.periodNs; // fell behind (real-time overload): skip, don't burst
      if (dropCameras && s.camera) { this.droppedFrames++; continue; }
      if (untilNs !== undefined && s.camera && untilNs + 1 >= s.nextNs) { this.supersededFrames++; continue; }
      // Rendering and JPEG encoding run synchronously inside publish() (in the render pool, they overlap).
      pending.push(s.publish(stampNs, lazyMeshes));
    }
    await Promise.all(pending);
    return pending.length;
  }
}
