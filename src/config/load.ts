/**
 * YAML config loading with positions: parse with `yaml` (keeping node ranges), validate with a zod
 * schema, and map every zod issue back to the YAML node it is about, so each error reads
 * `robots/x-one.yaml:42:7 joints[3].velocity_limit: expected number, found string "fast"`.
 * All errors of a file are collected and thrown together as one ConfigError.
 */
import { readFileSync } from "node:fs";
import { Document, isAlias, isMap, isNode, isPair, isScalar, isSeq, LineCounter, parseDocument, visit } from "yaml";
import type { Node as YamlNode } from "yaml";
import { z } from "zod";

/** One problem in one config file, at a 1-based line and column. */
export interface ConfigIssue {
  file: string;
  line: number;
  column: number;
  /** Field path like `joints[3].velocity_limit`, or "" for the whole document. */
  path: string;
  /** What was wrong: `expected number, found string "fast"`. */
  message: string;
}

/** Formats one issue as `file:line:col path: message`. */
export function formatIssue(i: ConfigIssue): string {
  return `${i.file}:${i.line}:${i.column}${i.path ? ` ${i.path}` : ""}: ${i.message}`;
}

/** Thrown when one or more config files are invalid; `issues` lists every problem found. */
export class ConfigError extends Error {
  readonly issues: ConfigIssue[];
  constructor(issues: ConfigIssue[]) {
    super(issues.map(formatIssue).join("\n"));
    this.name = "ConfigError";
    this.issues = issues;
  }
}

/** A parsed YAML file that can locate any field path. */
export interface YamlSource {
  file: string;
  doc: Document;
  lineCounter: LineCounter;
  /** Plain JS value of the document (undefined when the YAML itself is malformed). */
  data: unknown;
}

/** A field path as zod reports it. */
export type FieldPath = ReadonlyArray<string | number>;

/** Formats `["joints", 3, "velocity_limit"]` as `joints[3].velocity_limit`. */
export function formatPath(path: FieldPath): string {
  let out = "";
  for (const p of path) out += typeof p === "number" ? `[${p}]` : out ? `.${p}` : p;
  return out;
}

/** Parses YAML text; syntax errors come back as issues with the parser's line:column. */
export function parseYaml(file: string, text: string): { source: YamlSource; issues: ConfigIssue[] } {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: true, uniqueKeys: true });
  const issues: ConfigIssue[] = doc.errors.map((e) => {
    const pos = e.linePos?.[0] ?? lineCounter.linePos(e.pos[0]);
    return { file, line: pos.line, column: pos.col, path: "", message: `malformed YAML (${e.code}): ${e.message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "")}` };
  });
  let data: unknown;
  if (issues.length === 0) {
    try {
      data = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
    } catch (err) {
      issues.push(expansionIssue(file, doc, lineCounter, err as Error));
    }
  }
  return { source: { file, doc, lineCounter, data }, issues };
}

/**
 * How many nodes alias expansion may produce (the yaml library counts nested expansions): enough
 * for a config that reuses a block with `&name`/`*name`, far below what an alias bomb expands to.
 */
const MAX_ALIAS_COUNT = 1000;

/** An issue for a document that cannot be turned into data, placed at its first alias when it has one. */
function expansionIssue(file: string, doc: Document, lineCounter: LineCounter, err: Error): ConfigIssue {
  let offset: number | null = null;
  visit(doc, {
    Alias: (_, node) => {
      if (isAlias(node)) offset = node.range?.[0] ?? null;
      return offset === null ? undefined : visit.BREAK;
    },
  });
  const pos = lineCounter.linePos(offset ?? 0);
  const message = err instanceof ReferenceError && offset !== null
    ? `malformed YAML: aliases expand to more than ${MAX_ALIAS_COUNT} nodes (an alias bomb?); `
      + "expected a config that writes its values out or reuses a block a few times"
    : `malformed YAML: ${err.message.split("\n")[0]}`;
  return { file, line: pos.line, column: pos.col, path: "", message };
}

/** The YAML node at `path`, or the nearest ancestor that exists (for a missing field). */
function nodeAt(doc: Document, path: FieldPath): { node: YamlNode | null; exact: boolean; keyNode: YamlNode | null } {
  let node: unknown = doc.contents;
  let keyNode: YamlNode | null = null;
  for (let i = 0; i < path.length; i++) {
    const p = path[i]!;
    let next: unknown = undefined;
    let nextKey: YamlNode | null = null;
    if (isMap(node)) {
      const pair = node.items.find((it) => isPair(it) && isScalar(it.key) && String(it.key.value) === String(p));
      if (pair) { next = pair.value; nextKey = isNode(pair.key) ? pair.key : null; }
    } else if (isSeq(node) && typeof p === "number") {
      next = node.items[p];
    }
    if (!isNode(next)) {
      // Missing value: point at the key when there is one (e.g. `field:` with nothing), else the parent.
      return { node: nextKey ?? (isNode(node) ? node : null), exact: false, keyNode: nextKey };
    }
    node = next;
    keyNode = nextKey;
  }
  return { node: isNode(node) ? node : null, exact: true, keyNode };
}

/**
 * Line and column (1-based) of the field at `path`: a scalar's value, or the key of a map or list
 * (where `field:` is written), or the key whenever `preferKey` (unknown fields).
 */
export function locate(source: YamlSource, path: FieldPath, preferKey = false): { line: number; column: number } {
  const { node, keyNode } = nodeAt(source.doc, path);
  const target = (preferKey || isMap(node) || isSeq(node)) && keyNode ? keyNode : node;
  const offset = target?.range?.[0] ?? 0;
  const pos = source.lineCounter.linePos(offset);
  return { line: pos.line, column: pos.col };
}

/** The plain value at `path` in `data` (undefined when absent). */
function valueAt(data: unknown, path: FieldPath): unknown {
  let v = data;
  for (const p of path) {
    if (v === null || typeof v !== "object") return undefined;
    v = (v as Record<string | number, unknown>)[p];
  }
  return v;
}

/** Describes a found value for an error message: `string "fast"`, `number 3`, `a list of 2`, `nothing`. */
export function describeValue(v: unknown): string {
  if (v === undefined) return "nothing (field missing)";
  if (v === null) return "null";
  if (typeof v === "string") {
    // A URL's credentials never reach an error message (and from there a log).
    const shown = v.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@]*@/i, "$1***@");
    return `string ${JSON.stringify(shown.length > 60 ? `${shown.slice(0, 57)}...` : shown)}`;
  }
  if (typeof v === "number" || typeof v === "boolean") return `${typeof v} ${String(v)}`;
  if (Array.isArray(v)) {
    const scalars = v.length <= 16 && v.every((x) => typeof x === "number" || typeof x === "string" || typeof x === "boolean");
    return scalars ? `a list of ${v.length} ${JSON.stringify(v)}` : `a list of ${v.length}`;
  }
  if (typeof v === "object") return `a map with keys [${Object.keys(v).join(", ")}]`;
  return typeof v;
}

/** Turns one zod issue into config issues at the right YAML positions (unknown keys give one each). */
function fromZodIssue(source: YamlSource, issue: z.ZodIssue): ConfigIssue[] {
  const at = (path: FieldPath, message: string, preferKey = false): ConfigIssue => ({
    file: source.file, ...locate(source, path, preferKey), path: formatPath(path), message,
  });
  const found = describeValue(valueAt(source.data, issue.path));
  switch (issue.code) {
    case "unrecognized_keys":
      return issue.keys.map((k) => at([...issue.path, k], `unknown field "${k}" (not part of this schema; check spelling)`, true));
    case "invalid_type":
      return [at(issue.path, `expected ${issue.expected}, found ${found}`)];
    case "invalid_literal":
      return [at(issue.path, `expected ${JSON.stringify(issue.expected)}, found ${found}`)];
    case "invalid_enum_value":
      return [at(issue.path, `expected one of ${issue.options.map((o) => JSON.stringify(o)).join(", ")}, found ${found}`)];
    case "invalid_union_discriminator":
      return [at(issue.path, `expected one of ${issue.options.map((o) => JSON.stringify(o)).join(", ")}, found ${found}`)];
    case "too_small": {
      const what = issue.type === "array" ? "a list of" : issue.type === "string" ? "a string of length" : "a number";
      const op = issue.exact ? "exactly" : issue.inclusive ? "≥" : ">";
      const unit = issue.type === "array" ? " items" : "";
      return [at(issue.path, `expected ${what} ${op} ${String(issue.minimum)}${unit}, found ${found}`)];
    }
    case "too_big": {
      const what = issue.type === "array" ? "a list of" : issue.type === "string" ? "a string of length" : "a number";
      const op = issue.exact ? "exactly" : issue.inclusive ? "≤" : "<";
      const unit = issue.type === "array" ? " items" : "";
      return [at(issue.path, `expected ${what} ${op} ${String(issue.maximum)}${unit}, found ${found}`)];
    }
    case "invalid_string":
      // Regex checks carry their own "expected ..." message; built-in ones (url, email, ...) get one here.
      return [at(issue.path, `${issue.validation === "regex" ? issue.message : `expected a valid ${String(issue.validation)}`}, found ${found}`)];
    case "invalid_union":
      return [at(issue.path, `expected one of the allowed forms, found ${found} (${issue.unionErrors.map((e) => e.issues[0]?.message).filter(Boolean).join(" | ")})`)];
    default:
      // Custom refinements carry their own "expected ..." text; add what was found.
      return [at(issue.path, `${issue.message}, found ${found}`)];
  }
}

/**
 * Validates a parsed source against a schema; returns the value or every issue. When parsing
 * fails, `partial` (cross-field checks on the well-typed top-level fields) adds its issues too.
 */
export function validateSource<S extends z.ZodTypeAny>(
  source: YamlSource,
  schema: S,
  partial?: (data: unknown) => z.ZodIssue[],
): { ok: true; value: z.output<S> } | { ok: false; issues: ConfigIssue[] } {
  const result = schema.safeParse(source.data);
  if (result.success) return { ok: true, value: result.data as z.output<S> };
  const zodIssues = [...result.error.issues];
  const seen = new Set(zodIssues.map((i) => `${formatPath(i.path)}|${i.message}`));
  for (const i of partial?.(source.data) ?? []) if (!seen.has(`${formatPath(i.path)}|${i.message}`)) zodIssues.push(i);
  const issues = zodIssues.flatMap((i) => fromZodIssue(source, i));
  issues.sort((a, b) => a.line - b.line || a.column - b.column);
  return { ok: false, issues };
}

/** Reads a file, returning its text or an issue naming the file and the OS error. */
export function readConfigText(file: string): { text: string } | { issue: ConfigIssue } {
  try {
    return { text: readFileSync(file, "utf8") };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? "error";
    return { issue: { file, line: 1, column: 1, path: "", message: `cannot read file (${code}): ${(err as Error).message}` } };
  }
}

/**
 * Loads and validates one YAML file. Returns the value plus its source (to place later
 * cross-file errors), or every issue found in the file.
 */
export function loadYaml<S extends z.ZodTypeAny>(
  file: string,
  schema: S,
  partial?: (data: unknown) => z.ZodIssue[],
): { ok: true; value: z.output<S>; source: YamlSource } | { ok: false; issues: ConfigIssue[] } {
  const read = readConfigText(file);
  if ("issue" in read) return { ok: false, issues: [read.issue] };
  const { source, issues } = parseYaml(file, read.text);
  if (issues.length > 0) return { ok: false, issues };
  const result = validateSource(source, schema, partial);
  return result.ok ? { ok: true, value: result.value, source } : result;
}

/** Like loadYaml but throws a ConfigError listing every issue. */
export function loadYamlOrThrow<S extends z.ZodTypeAny>(file: string, schema: S, partial?: (data: unknown) => z.ZodIssue[]): { value: z.output<S>; source: YamlSource } {
  const r = loadYaml(file, schema, partial);
  if (!r.ok) throw new ConfigError(r.issues);
  return { value: r.value, source: r.source };
}

/** Builds an issue for the field at `path` in a loaded source (for cross-file checks). */
export function issueAt(source: YamlSource, path: FieldPath, message: string): ConfigIssue {
  return { file: source.file, ...locate(source, path), path: formatPath(path), message };
}
