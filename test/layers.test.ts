/**
 * The layer rules of DESIGN.md §2, checked on src/'s imports (TypeScript's own import scanner, so
 * static, re-export and literal dynamic imports all count): no import cycle between layer folders;
 * sim/ imported only by app/ and cli/ (and itself); cli/ and app/ imported by nobody else; and no
 * file in src/ over 300 lines without a `NOTE:` in its header saying why.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative, sep } from "node:path";
import { test } from "node:test";
import ts from "typescript";

const SRC = "src";

/** Layers only cli/ and app/ may import (besides themselves). */
const ORCHESTRATED = ["sim"];
/** Layers nothing but cli/ and app/ imports. */
const TOP = ["cli", "app"];
const MAX_LINES = 300;

interface Edge { from: string; to: string; file: string; spec: string }

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    return e.isDirectory() ? sourceFiles(p) : e.name.endsWith(".ts") ? [p] : [];
  });
}

/** The layer of a path under src/: its first folder; src/cli.ts (the entry point) is cli. */
function layerOf(path: string): string {
  const parts = relative(SRC, path).split(sep);
  return parts.length === 1 ? parts[0]!.replace(/\.ts$/, "") : parts[0]!;
}

function posix(path: string): string {
  return path.split(sep).join("/");
}

const FILES = sourceFiles(SRC).sort();
const EDGES: Edge[] = FILES.flatMap((file) => {
  const info = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
  return info.importedFiles
    .map((f) => f.fileName)
    .filter((spec) => spec.startsWith("."))
    .map((spec) => ({
      from: layerOf(file), to: layerOf(normalize(join(dirname(file), spec))), file: posix(file),
      spec,
    }))
    .filter((e) => e.from !== e.to);
});


/** Tarjan's strongly connected components of the layer graph: each one of two or more layers is a cycle. */
function cycles(edges: Edge[]): string[][] {
  const next = new Map<string, Set<string>>();
  for (const e of edges) {
    if (!next.has(e.from)) next.set(e.from, new Set());
    next.get(e.from)!.add(e.to);
  }
  const index = new Map<string, number>(), low = new Map<string, number>();
  const stack: string[] = [], on = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    on.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) === index.get(v)) {
      const scc: string[] = [];
      let w: string;
      do { w = stack.pop()!; on.delete(w); scc.push(w); } while (w !== v);
      if (scc.length > 1) out.push(scc.sort());
    }
  };
  for (const v of [...next.keys()].sort()) if (!index.has(v)) visit(v);
  return out;
}

const describe = (e: Edge): string => `${e.file} imports "${e.spec}" (${e.from} -> ${e.to})`;

test("the scan sees the layers and their imports", () => {
  const layers = new Set(FILES.map(layerOf));
  const expected = ["msgs", "bus", "config", "robot", "observe", "policy", "control", "trial", "record", "sim", "app", "cli"];
  for (const l of expected) {
    assert.ok(layers.has(l), `no src/${l}/ found`);
  }
  assert.ok(EDGES.some((e) => e.from === "app" && e.to === "sim"), "app/ imports sim/ (the scan must see it)");
  assert.ok(EDGES.length > 200, `only ${EDGES.length} cross-layer imports found`);
});

test("cycle detection finds a two-layer and a three-layer cycle", () => {
  const e = (from: string, to: string): Edge => ({ from, to, file: "x", spec: "y" });
  assert.deepEqual(cycles([e("a", "b"), e("b", "a"), e("c", "a")]), [["a", "b"]]);
  assert.deepEqual(cycles([e("a", "b"), e("b", "c"), e("c", "a"), e("d", "a")]), [["a", "b", "c"]]);
  assert.deepEqual(cycles([e("a", "b"), e("b", "c")]), []);
});

/** The shortest cycle through the first layer of `scc`: one import per step, so the message says what to move. */
function cyclePath(scc: string[], edges: Edge[]): Edge[] {
  const inside = edges.filter((e) => scc.includes(e.from) && scc.includes(e.to));
  const start = scc[0]!;
  const via = new Map<string, Edge>();
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift()!;
    for (const e of inside.filter((x) => x.from === v)) {
      if (e.to === start) {
        const path = [e];
        for (let at = v; at !== start; at = via.get(at)!.from) path.unshift(via.get(at)!);
        return path;
      }
      if (!via.has(e.to)) { via.set(e.to, e); queue.push(e.to); }
    }
  }
  return [];
}

test("no import cycle between layer folders", () => {
  const edges = EDGES;
  const found = cycles(edges).map((scc) => `${scc.join(", ")}: ${cyclePath(scc, edges).map(describe).join("; ")}`);
  assert.deepEqual(found, [], `layer cycles:\n${found.join("\n")}`);
});

test("sim/ is imported only by app/ and cli/", () => {
  const bad = EDGES.filter((e) => ORCHESTRATED.includes(e.to) && !TOP.includes(e.from)).map(describe);
  assert.deepEqual(bad, [], bad.join("\n"));
});

test("nothing but cli/ and app/ imports cli/ or app/", () => {
  const bad = EDGES.filter((e) => TOP.includes(e.to) && !TOP.includes(e.from)).map(describe);
  assert.deepEqual(bad, [], bad.join("\n"));
});

test(`no file in src/ over ${MAX_LINES} lines without a NOTE: in its header saying why`, () => {
  const long = FILES.map((file) => ({ file: posix(file), text: readFileSync(file, "utf8") }))
    .map(({ file, text }) => ({ file, text, lines: text.split("\n").length - (text.endsWith("\n") ? 1 : 0) }))
    .filter((f) => f.lines > MAX_LINES);
  const header = (text: string): string => /^\s*\/\*\*?[\s\S]*?\*\//.exec(text)?.[0] ?? "";
  const bad = long.filter((f) => !header(f.text).includes("NOTE:"))
    .map((f) => `${f.file}: ${f.lines} lines, no NOTE: in its header comment`);
  assert.deepEqual(bad, [], bad.join("\n"));
});
