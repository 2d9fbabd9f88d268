/**
 * A run's history store (run config `history`, `--history DIR`): a Policy wrapper that appends what
 * the policy saw to src/memory/historyStore.ts as it happens. A demonstration becomes one session
 * (kind "demonstration", its frames encoded by the policy's encoder); each episode another (kind
 * "episode"), one frame per observed tick: the feature the policy wrote to memory, the tick's step and
 * stamp, and a 64x48 JPEG thumbnail of the first policy camera. A session is stored when its episode
 * ends (`endSession`), so a crash loses at most the episode running. Only an in-process Mem-0 policy
 * has features to store: a remote one is refused by name.
 */
import { HistoryStore, type SessionWriter } from "../memory/index.js";
import { jpegFromRgb } from "../msgs/image.js";
import { Mem0Policy } from "../policy/mem0/Mem0Policy.js";
import type { ActionChunk, EpisodeInfo, ObserveResult, Policy, PreparedObservation } from "../policy/types.js";
import type { EventLog } from "./eventLog.js";

const THUMBNAIL = { width: 64, height: 48, quality: 80 };

export class HistoryTap {
  private writer: SessionWriter | null = null;
  private episode: EpisodeInfo | null = null;
  private step = 0;

  private constructor(
    private readonly store: HistoryStore, private readonly source: Mem0Policy, private readonly events: EventLog,
  ) {}

  /** Opens the store at `dir` for `policy`'s features. Throws naming a policy without features, or a store in use. */
  static async open(dir: string, policy: Policy, events: EventLog): Promise<HistoryTap> {
    if (!(policy instanceof Mem0Policy)) {
      throw new Error(`history ${dir}: policy ${policy.spec.name} is not an in-process Mem-0 bundle `
        + "(its features stay on its server)");
    }
    const { store, discarded } = await HistoryStore.open(dir, policy.featureDim);
    if (discarded.length > 0) events.emit({ event: "history_discarded", store: dir, files: discarded });
    return new HistoryTap(store, policy, events);
  }

  /** `inner` (the loop's policy, which may wrap the Mem-0 policy) with every observed frame stored. */
  wrap(inner: Policy): Policy {
    const tap = this;
    return {
      get spec() { return inner.spec; },
      async reset(episode: EpisodeInfo): Promise<void> {
        tap.endSession();
        tap.episode = episode;
        tap.step = 0;
        await inner.reset(episode);
      },
      resetSession: () => inner.resetSession(),
      setInstruction: (text: string) => inner.setInstruction(text),
      async observeDemonstration(frames: readonly PreparedObservation[]): Promise<void> {
        await inner.observeDemonstration(frames);
        await tap.storeDemonstration(frames);
      },
      async observe(obs: PreparedObservation): Promise<ObserveResult> {
        const r = await inner.observe(obs);
        await tap.append(obs);
        return r;
      },
      act: (): Promise<ActionChunk> => inner.act(),
    };
  }

  /** Stores the running episode's session (at its end; a no-op when none is open). */
  endSession(): void {
    const writer = this.writer;
    this.writer = null;
    const info = writer?.close();
    if (info) this.events.emit({ event: "history_session", id: info.id, kind: info.kind, frames: info.frames });
  }

  /** Stores the open session and releases the store. */
  close(): void {
    try { this.endSession(); } finally { this.store.close(); }
  }

  private async append(obs: PreparedObservation): Promise<void> {
    const feature = this.source.lastFeature;
    if (!feature) return;
    this.writer ??= this.store.beginSession({ kind: "episode", task: this.episode?.task ?? "unknown" });
    this.writer.append({ feature, step: this.step++, stampNs: obs.stampNs, thumbnailJpeg: await this.thumbnail(obs) });
  }

  private async storeDemonstration(frames: readonly PreparedObservation[]): Promise<void> {
    const features = await this.source.encodeFrames(frames);
    const writer = this.store.beginSession({ kind: "demonstration", task: this.episode?.task ?? "unknown" });
    for (const [i, obs] of frames.entries()) {
      writer.append({ feature: features[i]!, step: i, stampNs: obs.stampNs, thumbnailJpeg: await this.thumbnail(obs) });
    }
    const info = writer.close();
    if (info) this.events.emit({ event: "history_session", id: info.id, kind: info.kind, frames: info.frames });
  }

  /** The first policy camera's image, un-normalized and sampled down to THUMBNAIL, as a JPEG. */
  private thumbnail(obs: PreparedObservation): Promise<Uint8Array> {
    const spec = this.source.spec;
    const { width, height } = spec.imageSize;
    const chw = obs.images[spec.cameras[0]!]!;
    const { mean, std } = spec.pixelNormalization ?? { mean: [0, 0, 0], std: [1, 1, 1] };
    const { width: w, height: h } = THUMBNAIL;
    const rgb = new Uint8Array(w * h * 3);
    for (let y = 0; y < h; y++) {
      const sy = Math.floor(((y + 0.5) * height) / h);
      for (let x = 0; x < w; x++) {
        const sx = Math.floor(((x + 0.5) * width) / w);
        for (let c = 0; c < 3; c++) {
          const v = chw[c * width * height + sy * width + sx]! * std[c]! + mean[c]!;
          rgb[(y * w + x) * 3 + c] = Math.max(0, Math.min(255, Math.round(v * 255)));
        }
      }
    }
    return jpegFromRgb(rgb, w, h, THUMBNAIL.quality, "sharp");
  }
}
