/**
 * The history store: sessions survive the process (reopened from their Parquet files, which pyarrow
 * reads too), the nearest-frame query is exact (against a full scan), a half-written session never
 * shows, and kill -9 while appending loses at most the open session.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { FrameIndex } from "../../src/memory/frameIndex.js";
import { HistoryStore } from "../../src/memory/historyStore.js";
import { mulberry32 } from "../../src/policy/mem0/flowSampler.js";
import { missingPython, runPython, VENV_PYTHON } from "../record/externalTools.js";

const tmp = mkdtempSync(join(tmpdir(), "engram-history-"));
after(() => rmSync(tmp, { recursive: true, force: true }));

const D = 8;
const rand = mulberry32(11);
const vec = (center: number, spread: number) =>
  Float32Array.from({ length: D }, () => center + spread * (rand() * 2 - 1));

test("sessions are stored whole, reopened in order with their features; an empty session stores nothing", async () => {
  const dir = join(tmp, "reopen");
  const { store, discarded } = await HistoryStore.open(dir, D);
  assert.deepEqual(discarded, []);
  const written: Float32Array[][] = [];
  for (const [s, task] of ["video-unmask", "move-cube"].entries()) {
    const w = store.beginSession({ kind: s === 0 ? "demonstration" : "episode", task, encoder: `encoder-${s}` });
    assert.throws(
      () => store.beginSession({ kind: "episode", task: "x", encoder: "test" }), /session .* is still open/,
    );
    const frames = Array.from({ length: 5 + s }, () => vec(s, 0.1));
    frames.forEach((feature, i) => w.append({
      feature, step: i, stampNs: BigInt(100 + i), thumbnailJpeg: Uint8Array.of(0xff, 0xd8, s),
    }));
    assert.throws(
      () => w.append({ feature: new Float32Array(3), step: 9, stampNs: 0n, thumbnailJpeg: new Uint8Array() }),
      /3 values, the store 8/,
    );
    w.close();
    written.push(frames);
  }
  assert.equal(store.beginSession({ kind: "episode", task: "empty", encoder: "test" }).close(), null);
  const again = (await HistoryStore.open(dir, D)).store;
  assert.deepEqual(again.sessions().map((s) => [s.id, s.kind, s.task, s.encoder, s.frames, s.startNs, s.endNs]), [
    ["000000-video-unmask", "demonstration", "video-unmask", "encoder-0", 5, 100n, 104n],
    ["000001-move-cube", "episode", "move-cube", "encoder-1", 6, 100n, 105n],
  ]);
  assert.deepEqual(again.features("000001-move-cube"), written[1]);
  const next = again.beginSession({ kind: "episode", task: "next", encoder: "test" });
  assert.equal(next.id, "000002-next", "numbering goes on");
  await assert.rejects(
    HistoryStore.open(dir, D + 1),
    /000000-video-unmask\.parquet: row 0 feature has 8 values, the store 9/,
  );
});

test("the nearest frame is exact: the same as a full scan over 60 sessions, with and without excluded sessions", () => {
  const index = new FrameIndex(D);
  const all: Array<{ id: string; frame: number; f: Float32Array }> = [];
  for (let s = 0; s < 60; s++) {
    const center = rand() * 4 - 2, frames = Array.from({ length: 10 + (s % 7) }, () => vec(center, s % 2 ? 0.3 : 2));
    index.addSession(`s${s}`, frames);
    frames.forEach((f, frame) => all.push({ id: `s${s}`, frame, f }));
  }
  const d2 = (a: Float32Array, b: Float32Array) => a.reduce((s, v, k) => s + (v - b[k]!) ** 2, 0);
  for (let q = 0; q < 50; q++) {
    const query = vec(rand() * 4 - 2, 1);
    const exclude = new Set(q % 2 ? ["s3", "s4"] : []);
    const scan = all.filter((x) => !exclude.has(x.id)).reduce((b, x) => (d2(x.f, query) < d2(b.f, query) ? x : b));
    const got = index.nearest(query, exclude)!;
    assert.deepEqual([got.session, got.frame], [scan.id, scan.frame], `query ${q}`);
  }
  assert.equal(new FrameIndex(D).nearest(vec(0, 1)), null);
});

test("a half-written session left by a crash is removed at open and named", async () => {
  const dir = join(tmp, "partial");
  const { store } = await HistoryStore.open(dir, D);
  const w = store.beginSession({ kind: "episode", task: "t", encoder: "test" });
  w.append({ feature: vec(0, 1), step: 0, stampNs: 0n, thumbnailJpeg: new Uint8Array() });
  w.close();
  writeFileSync(join(dir, "sessions", ".000001-t.partial"), "PAR1 half a file");
  const reopened = await HistoryStore.open(dir, D);
  assert.deepEqual(reopened.discarded, [".000001-t.partial"]);
  assert.deepEqual(reopened.store.sessions().map((s) => s.id), ["000000-t"]);
  assert.ok(!existsSync(join(dir, "sessions", ".000001-t.partial")));
});

test("kill -9 while appending loses at most the open session", { timeout: 60_000 }, async () => {
  const dir = join(tmp, "kill");
  const child = spawn(process.execPath, ["--import", "tsx", "test/fakes/historyAppender.ts", dir], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const stored: string[] = [];
  let open = "";
  await new Promise<void>((resolve, reject) => {
    child.on("error", reject);
    child.on("exit", (code) => reject(new Error(`the appender exited (${code}) before it was killed`)));
    child.stdout.setEncoding("utf8").on("data", (text: string) => {
      for (const line of text.split("\n")) {
        if (line.startsWith("stored ")) stored.push(line.slice(7));
        if (line.startsWith("open ")) open = line.slice(5);
        if (stored.length >= 20 && open && !stored.includes(open)) {
          child.removeAllListeners("exit");
          child.kill("SIGKILL");
          child.on("exit", () => resolve());
          return;
        }
      }
    });
  });
  const { store } = await HistoryStore.open(dir, 16);
  const ids = store.sessions().map((s) => s.id);
  for (const id of stored) assert.ok(ids.includes(id), `stored session ${id} survived`);
  assert.ok(!ids.includes(open) || ids.length === stored.length + 1, "the open session is absent (or complete)");
  assert.ok(store.sessions().every((s) => s.frames === 32), "every session whole");
  assert.deepEqual(
    readdirSync(join(dir, "sessions")).filter((n) => !n.endsWith(".parquet")),
    [],
    "nothing half-written left",
  );
});

const noPyarrow = missingPython(VENV_PYTHON, ["pyarrow.parquet"]);
test("pyarrow reads the store's sessions as one dataset", { skip: noPyarrow ?? false }, async () => {
  const dir = join(tmp, "pyarrow");
  const { store } = await HistoryStore.open(dir, D);
  for (let s = 0; s < 2; s++) {
    const w = store.beginSession({ kind: "episode", task: "press-button", encoder: "test" });
    for (let i = 0; i < 3; i++) {
      w.append({ feature: vec(s, 0), step: i, stampNs: BigInt(i), thumbnailJpeg: Uint8Array.of(1, 2, i) });
    }
    w.close();
  }
  const out = runPython(VENV_PYTHON, [
    "import sys, json, pyarrow.dataset as ds",
    "t = ds.dataset(sys.argv[1], format='parquet').to_table()"
      + ".sort_by([('session', 'ascending'), ('step', 'ascending')])",
    "print(json.dumps({'rows': t.num_rows, 'columns': t.column_names, 'types': [str(f.type) for f in t.schema],",
    "  'sessions': sorted(set(t['session'].to_pylist())), 'feature': t['feature'][3].as_py(),"
      + " 'thumb': list(t['thumbnail'][2].as_py())}))",
  ].join("\n"), [join(dir, "sessions")]);
  const got = JSON.parse(out) as {
    rows: number; columns: string[]; types: string[]; sessions: string[]; feature: number[]; thumb: number[];
  };
  assert.equal(got.rows, 6);
  assert.deepEqual(got.columns, ["session", "kind", "task", "step", "stamp_ns", "feature", "thumbnail"]);
  assert.deepEqual(got.types, [
    "string", "string", "string", "int64", "int64", "list<element: float not null>", "binary",
  ]);
  assert.deepEqual(got.sessions, ["000000-press-button", "000001-press-button"]);
  assert.deepEqual(got.feature, Array.from(store.features("000001-press-button")[0]!));
  assert.deepEqual(got.thumb, [1, 2, 2]);
});

test("one process at a time: a live holder's lock is refused by pid, a dead one's taken over, "
  + "close releases", async () => {
  const dir = join(tmp, "lock");
  const { store } = await HistoryStore.open(dir, D);
  store.close();
  assert.ok(!existsSync(join(dir, ".lock")), "close releases the lock");
  writeFileSync(join(dir, ".lock"), String(process.ppid));
  await assert.rejects(
    HistoryStore.open(dir, D),
    new RegExp(`history store .*lock is open in process ${process.ppid} \\(one writer at a time\\)`),
  );
  writeFileSync(join(dir, ".lock"), "999999999");
  const again = await HistoryStore.open(dir, D);
  assert.equal(readFileSync(join(dir, ".lock"), "utf8"), String(process.pid));
  again.store.close();
});

test("a stored session damaged later (a flipped byte) is named at open, with what to do", async () => {
  const dir = join(tmp, "flipped");
  const { store } = await HistoryStore.open(dir, D);
  const w = store.beginSession({ kind: "episode", task: "t", encoder: "test" });
  for (let i = 0; i < 4; i++) {
    w.append({ feature: vec(0, 1), step: i, stampNs: BigInt(i), thumbnailJpeg: new Uint8Array(8) });
  }
  w.close();
  store.close();
  const file = join(dir, "sessions", "000000-t.parquet");
  const bytes = readFileSync(file);
  bytes[bytes.length - 6]! ^= 0xff; // inside the footer's length: the metadata no longer parses
  writeFileSync(file, bytes);
  await assert.rejects(HistoryStore.open(dir, D),
    /history store: .*000000-t\.parquet is not a readable session file \(.*\); move it out of the store/);
  // A flipped byte in a feature value still parses: the checksum written with the values names it.
  bytes[bytes.length - 6]! ^= 0xff;
  writeFileSync(file, bytes); // the first session whole again
  const marker = Buffer.from(Float32Array.of(1234.5677490234375).buffer);
  const { store: again } = await HistoryStore.open(dir, D);
  const w2 = again.beginSession({ kind: "episode", task: "u", encoder: "test" });
  const feature = Float32Array.from({ length: D }, (_, k) => (k === 3 ? 1234.5677490234375 : k));
  w2.append({ feature, step: 0, stampNs: 0n, thumbnailJpeg: new Uint8Array(8) });
  w2.close();
  again.close();
  const second = join(dir, "sessions", "000001-u.parquet");
  const data = readFileSync(second);
  const at = data.indexOf(marker);
  assert.ok(at > 0, "the feature value is stored as it is");
  data[at + 1]! ^= 0x01;
  writeFileSync(second, data);
  await assert.rejects(HistoryStore.open(dir, D),
    /000001-u\.parquet is not a readable session file \(its values do not match the checksum written with them\)/);
});
