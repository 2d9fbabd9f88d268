/**
 * The history store: memory that outlives episodes and processes (a robot's days of sessions).
 * A session (a demonstration, a finished episode) is appended as it happens and stored, once it
 * ends, as one Parquet file `sessions/<seq>-<task>.parquet` (sessionFile.ts), which pyarrow, DuckDB
 * and pandas read as one dataset. The file is written beside its final name and renamed after an
 * fsync, so a crash (kill -9, power) loses at most the open session; `open` removes what such a crash
 * left, and names a file damaged later (its checksum).
 * Opening loads every feature into an in-memory index (FrameIndex) for exact nearest-frame queries.
 * One process holds a store at a time (`.lock` with its pid; a dead holder's lock is taken over).
 */
import {
  closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeSync,
} from "node:fs";
import { join } from "node:path";
import { FrameIndex, type Nearest } from "./frameIndex.js";
import { readSession, readThumbnails, syncFile, writeSessionFile } from "./sessionFile.js";

/** What a stored session is. */
export interface SessionInfo {
  /** The file stem: `<seq>-<task>`. */
  id: string;
  kind: string;
  task: string;
  /** SHA-256 of the encoder.onnx that computed its features; null for a session stored before sessions named it. */
  encoder: string | null;
  frames: number;
  /** Bus-clock stamps of its first and last frame (ns). */
  startNs: bigint;
  endNs: bigint;
}

/** One frame as a strategy stores it. */
export interface StoredFrame {
  feature: Float32Array;
  step: number;
  stampNs: bigint;
  /** A small JPEG of the frame (THUMBNAIL): for people reading the store, and retrieval's image embedding. */
  thumbnailJpeg: Uint8Array;
}

const SESSIONS = "sessions";
const SUFFIX = ".parquet";
const PARTIAL = ".partial";
/** A task id as it may appear in a file name. */
const fileSafe = (s: string) => s.replace(/[^A-Za-z0-9_-]+/g, "_").slice(0, 64) || "session";

export class HistoryStore {
  private readonly infos: SessionInfo[] = [];
  private open: SessionWriter | null = null;
  private nextSeq = 0;

  private constructor(
    readonly dir: string, readonly featureDim: number, readonly index: FrameIndex, private readonly readOnly: boolean,
  ) {}

  /**
   * Opens (or creates) the store in `dir` for features of `featureDim` values and loads its index.
   * `discarded` lists what a crash left half-written (removed). Throws naming a file whose
   * features are not `featureDim` long.
   */
  static async open(dir: string, featureDim: number): Promise<{ store: HistoryStore; discarded: string[] }> {
    const folder = join(dir, SESSIONS);
    mkdirSync(folder, { recursive: true });
    lock(dir);
    try {
      const names = readdirSync(folder).sort();
      const discarded = names.filter((n) => n.endsWith(PARTIAL));
      for (const n of discarded) rmSync(join(folder, n), { force: true });
      return { store: await HistoryStore.load(dir, featureDim, false), discarded };
    } catch (err) {
      unlock(dir);
      throw err;
    }
  }

  /**
   * Opens a store to read (a distractor pool): no lock, no clean-up, no new sessions.
   * Throws naming a missing store.
   */
  static async openToRead(dir: string, featureDim: number): Promise<HistoryStore> {
    if (!existsSync(join(dir, SESSIONS))) {
      throw new Error(`history store ${dir}: no ${SESSIONS}/ folder (not a history store)`);
    }
    return HistoryStore.load(dir, featureDim, true);
  }

  private static async load(dir: string, featureDim: number, readOnly: boolean): Promise<HistoryStore> {
    const folder = join(dir, SESSIONS);
    const names = readdirSync(folder).sort();
    const store = new HistoryStore(dir, featureDim, new FrameIndex(featureDim), readOnly);
    for (const name of names.filter((n) => n.endsWith(SUFFIX))) {
      const file = join(folder, name);
      const { rows, encoder } = await readSession(file);
      const features = rows.map((r, i) => {
        const f = r.feature as number[];
        if (f.length !== featureDim) {
          throw new Error(`${file}: row ${i} feature has ${f.length} values, the store ${featureDim}`);
        }
        return Float32Array.from(f);
      });
      if (rows.length === 0) continue;
      const id = name.slice(0, -SUFFIX.length);
      store.add({
        id, kind: String(rows[0]!.kind), task: String(rows[0]!.task), encoder, frames: rows.length,
        startNs: BigInt(rows[0]!.stamp_ns as bigint), endNs: BigInt(rows.at(-1)!.stamp_ns as bigint),
      }, features);
      store.nextSeq = Math.max(store.nextSeq, Number.parseInt(id, 10) + 1);
    }
    return store;
  }

  /** Abandons an open session and lets another process open the store. */
  close(): void {
    this.open?.abandon();
    if (!this.readOnly) unlock(this.dir);
  }

  /** Every stored session, oldest first. */
  sessions(): readonly SessionInfo[] {
    return this.infos;
  }

  /** The features of a stored session, in order. */
  features(id: string): Float32Array[] {
    return this.index.sessionFeatures(id);
  }

  /** The JPEG thumbnails of a stored session, in order (read from its file). */
  thumbnails(id: string): Promise<Uint8Array[]> {
    return readThumbnails(join(this.dir, SESSIONS, id + SUFFIX));
  }

  /** The stored frame nearest `feature` (squared L2), and its session; null when none is stored outside `exclude`. */
  nearest(feature: Float32Array, exclude: ReadonlySet<string> = new Set()): Nearest | null {
    return this.index.nearest(feature, exclude);
  }

  /**
   * Starts appending a session (one at a time); it is stored when its writer closes. `encoder`: the
   * SHA-256 of the encoder.onnx whose features it stores.
   */
  beginSession(info: { kind: string; task: string; encoder: string }): SessionWriter {
    if (this.readOnly) throw new Error(`history store ${this.dir} is open to read only`);
    if (this.open) throw new Error(`history store ${this.dir}: session ${this.open.id} is still open`);
    const id = `${String(this.nextSeq++).padStart(6, "0")}-${fileSafe(info.task)}`;
    this.open = new SessionWriter(this, id, info);
    return this.open;
  }

  /** Called by a SessionWriter once its file is in place (or abandoned: `features` null). */
  settle(writer: SessionWriter, info: SessionInfo | null, features: Float32Array[]): void {
    if (this.open === writer) this.open = null;
    if (info) this.add(info, features);
  }

  private add(info: SessionInfo, features: Float32Array[]): void {
    this.infos.push(info);
    this.index.addSession(info.id, features);
  }
}

/** Appends one session's frames; `close` stores them whole, `abandon` drops them. */
export class SessionWriter {
  private readonly frames: StoredFrame[] = [];
  private done = false;

  constructor(
    private readonly store: HistoryStore, readonly id: string,
    private readonly info: { kind: string; task: string; encoder: string },
  ) {}

  append(frame: StoredFrame): void {
    if (this.done) throw new Error(`history session ${this.id}: append after close`);
    if (frame.feature.length !== this.store.featureDim) {
      throw new Error(`history session ${this.id}: feature has ${frame.feature.length} values, `
        + `the store ${this.store.featureDim}`);
    }
    this.frames.push({ ...frame, feature: Float32Array.from(frame.feature) });
  }

  /** Writes the session file (fsync, then rename into place) and indexes it; an empty session stores nothing. */
  close(): SessionInfo | null {
    if (this.done) return null;
    this.done = true;
    const f = this.frames;
    if (f.length === 0) {
      this.store.settle(this, null, []);
      return null;
    }
    const folder = join(this.store.dir, SESSIONS);
    const final = join(folder, this.id + SUFFIX), partial = join(folder, `.${this.id}${PARTIAL}`);
    try {
      writeSessionFile(partial, this.id, this.info, f);
      renameSync(partial, final);
      syncFile(folder);
    } catch (err) {
      rmSync(partial, { force: true });
      this.store.settle(this, null, []);
      throw new Error(`history store: writing ${final}: ${(err as Error).message}`);
    }
    const info: SessionInfo = {
      id: this.id, kind: this.info.kind, task: this.info.task, encoder: this.info.encoder, frames: f.length,
      startNs: f[0]!.stampNs, endNs: f.at(-1)!.stampNs,
    };
    this.store.settle(this, info, f.map((x) => x.feature));
    return info;
  }

  /** Drops the session (nothing is written). */
  abandon(): void {
    if (this.done) return;
    this.done = true;
    this.store.settle(this, null, []);
  }
}

/** Takes `dir/.lock` for this process; a lock whose process is gone is taken over. */
function lock(dir: string): void {
  const file = join(dir, ".lock");
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, "wx");
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      const pid = Number.parseInt(readFileSync(file, "utf8"), 10);
      if (Number.isInteger(pid) && pid !== process.pid && alive(pid)) {
        throw new Error(`history store ${dir} is open in process ${pid} (one writer at a time)`);
      }
      rmSync(file, { force: true });
    }
  }
  throw new Error(`history store ${dir}: cannot take ${file}`);
}

function unlock(dir: string): void {
  const file = join(dir, ".lock");
  try {
    if (Number.parseInt(readFileSync(file, "utf8"), 10) === process.pid) rmSync(file, { force: true });
  } catch { /* already gone */ }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
