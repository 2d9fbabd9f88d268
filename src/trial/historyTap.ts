/**
 * A run's history store (run config `history`, `--history DIR`): a Policy wrapper that appends what
 * the policy saw to src/memory/historyStore.ts as it happens. A demonstration becomes one session
 * (kind "demonstration", its frames encoded by the policy's encoder); each episode another (kind
 * "episode"), one frame per observed tick: the feature the policy wrote to memory, the tick's step and
 * stamp, and a 64x48 JPEG thumbnail of the first policy camera (encoded off the control tick). A
 * session is stored when its episode ends (`endSession`), so a crash loses at most the episode running;
 * a store that fails to write is reported (`history_fault`) and left alone, the run goes on. Only an
 * in-process Mem-0 policy has features to store: a remote one is refused by name.
 */
import { HistoryStore, type SessionWriter, THUMBNAIL, thumbnailRgb } from "../memory/index.js";
import { jpegFromRgb } from "../msgs/image.js";
import { Mem0Policy } from "../policy/mem0/Mem0Policy.js";
import type { ActionChunk, EpisodeInfo, ObserveResult, Policy, PreparedObservation } from "../policy/types.js";
import type { EventLog } from "./eventLog.js";

const THUMBNAIL_QUALITY = 80;

/** A frame waiting for its session's end. */
interface KeptFrame { feature: Float32Array; step: number; stampNs: bigint; thumbnail: Promise<Uint8Array> }

export class HistoryTap {
  /** The running episode's frames; thumbnails encode off the control tick and are awaited at the session's end. */
  private frames: KeptFrame[] = [];
  private episode: EpisodeInfo | null = null;
  /** Set by the first failure: the store is left alone for the rest of the run (a `fault` event says why). */
  private failed = false;

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

  /** `inner` (the loop's policy, which may wrap the Mem-0 policy) with every observed frame kept for the store. */
  wrap(inner: Policy): Policy {
    const tap = this;
    return {
      get spec() { return inner.spec; },
      async reset(episode: EpisodeInfo): Promise<void> {
        await tap.endSession();
        tap.episode = episode;
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
        tap.keep(obs);
        return r;
      },
      act: (): Promise<ActionChunk> => inner.act(),
    };
  }

  /** Stores the running episode's frames as a session (at its end; a no-op when it has none). */
  async endSession(): Promise<void> {
    const frames = this.frames;
    this.frames = [];
    if (frames.length > 0) await this.storeSession("episode", frames);
  }

  /** Stores the open session and releases the store. */
  async close(): Promise<void> {
    try { await this.endSession(); } finally { this.store.close(); }
  }

  /** Keeps the tick's frame (the feature its observe() wrote): no disk and no encode on the control tick. */
  private keep(obs: PreparedObservation): void {
    const feature = this.source.writtenFeatures.at(-1);
    if (feature && !this.failed) this.frames.push(this.frameOf(feature, this.frames.length, obs));
  }

  /** The demonstration's frames as one session, with the features the policy wrote for them (no second encode). */
  private async storeDemonstration(frames: readonly PreparedObservation[]): Promise<void> {
    const features = this.source.writtenFeatures.slice(-frames.length);
    if (this.failed || features.length !== frames.length) return;
    await this.storeSession("demonstration", frames.map((obs, i) => this.frameOf(features[i]!, i, obs)));
  }

  private frameOf(feature: Float32Array, step: number, obs: PreparedObservation): KeptFrame {
    const thumbnail = this.thumbnail(obs);
    thumbnail.catch(() => {}); // awaited, and a failure reported, when the session is stored
    return { feature, step, stampNs: obs.stampNs, thumbnail };
  }

  /**
   * Writes one session. A failure (a full disk, a thumbnail that would not encode) is a `history_fault`
   * event naming the store, and the run goes on without it: the history is not what moves the arm.
   */
  private async storeSession(kind: string, frames: readonly KeptFrame[]): Promise<void> {
    if (this.failed) return;
    const writer = this.store.beginSession({
      kind, task: this.episode?.task ?? "unknown", encoder: this.source.encoderSha256,
    });
    try {
      for (const { thumbnail, ...f } of frames) writer.append({ ...f, thumbnailJpeg: await thumbnail });
      const info = writer.close();
      if (info) this.events.emit({ event: "history_session", id: info.id, kind: info.kind, frames: info.frames });
    } catch (err) {
      writer.abandon();
      this.failed = true;
      this.events.emit({ event: "history_fault", store: this.store.dir, reason: (err as Error).message });
    }
  }
  /** The first policy camera's image, un-normalized and sampled down to THUMBNAIL, as a JPEG. */
  private async thumbnail(obs: PreparedObservation): Promise<Uint8Array> {
    const spec = this.source.spec;
    const { width, height } = spec.imageSize;
    const rgb = thumbnailRgb(obs.images[spec.cameras[0]!]!, width, height, spec.pixelNormalization);
    return jpegFromRgb(rgb, THUMBNAIL.width, THUMBNAIL.height, THUMBNAIL_QUALITY, "sharp");
  }
}
