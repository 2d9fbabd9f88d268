/**
 * Operator keys in the terminal: raw-mode stdin, so they work over SSH with no global hotkeys.
 * Episode keys: `n` save (success), `f` save as failure, `r` discard and re-record, space pause /
 * hold, `q` (or Ctrl-C) stop. Jog keys (keyboard source): see JOG_KEYS.
 */

/** An episode key. */
export type EpisodeKey = "save" | "fail" | "discard" | "pause" | "quit";

/** One end-effector jog: translation axis (tool moves ±step along base x/y/z), gripper toggle, arm switch. */
export type JogKey =
  | { kind: "move"; axis: 0 | 1 | 2; sign: 1 | -1 }
  | { kind: "gripper" }
  | { kind: "arm" };

/** A decoded key press. */
export type KeyPress = { kind: "episode"; key: EpisodeKey } | { kind: "jog"; jog: JogKey } | { kind: "other"; text: string };

/** Jog keys: w/s ±x, a/d ±y, e/c ±z (arrow up/down also ±x, left/right ±y), g gripper toggle, tab next arm. */
const JOG_KEYS: Record<string, JogKey> = {
  w: { kind: "move", axis: 0, sign: 1 }, s: { kind: "move", axis: 0, sign: -1 },
  a: { kind: "move", axis: 1, sign: 1 }, d: { kind: "move", axis: 1, sign: -1 },
  e: { kind: "move", axis: 2, sign: 1 }, c: { kind: "move", axis: 2, sign: -1 },
  "\u001b[A": { kind: "move", axis: 0, sign: 1 }, "\u001b[B": { kind: "move", axis: 0, sign: -1 },
  "\u001b[D": { kind: "move", axis: 1, sign: 1 }, "\u001b[C": { kind: "move", axis: 1, sign: -1 },
  g: { kind: "gripper" }, "\t": { kind: "arm" },
};

const EPISODE_KEYS: Record<string, EpisodeKey> = { n: "save", f: "fail", r: "discard", " ": "pause", q: "quit", "\u0003": "quit" };

/** Splits one stdin chunk into key presses (escape sequences kept whole). Pure. */
export function parseKeys(chunk: string): KeyPress[] {
  const out: KeyPress[] = [];
  for (let i = 0; i < chunk.length;) {
    let token = chunk[i]!;
    if (token === "\u001b" && chunk[i + 1] === "[" && i + 2 < chunk.length) token = chunk.slice(i, i + 3);
    i += token.length;
    const lower = token.length === 1 ? token.toLowerCase() : token;
    const ep = EPISODE_KEYS[lower];
    if (ep) out.push({ kind: "episode", key: ep });
    else if (JOG_KEYS[lower]) out.push({ kind: "jog", jog: JOG_KEYS[lower]! });
    else out.push({ kind: "other", text: token });
  }
  return out;
}

/** A source of key presses: the terminal, or a scripted list in tests. */
export interface KeySource {
  /** Calls `listener` for every key press until the returned remover is called. */
  onKey(listener: (k: KeyPress) => void): () => void;
  /** Restores the terminal. */
  close(): void;
}

/**
 * Raw-mode stdin keys. Throws when stdin is not a terminal (then run without keys: the expert
 * source saves by the sim's verdict; the leader/keyboard sources need a terminal).
 */
export function terminalKeys(stdin: NodeJS.ReadStream = process.stdin): KeySource {
  if (!stdin.isTTY) throw new Error("record: operator keys need a terminal on stdin (run in a TTY, e.g. ssh -t)");
  stdin.setRawMode(true);
  stdin.setEncoding("utf8");
  stdin.resume();
  const listeners = new Set<(k: KeyPress) => void>();
  const onData = (chunk: string) => { for (const k of parseKeys(chunk)) for (const l of [...listeners]) l(k); };
  stdin.on("data", onData);
  return {
    onKey(listener) { listeners.add(listener); return () => listeners.delete(listener); },
    close() { stdin.off("data", onData); stdin.setRawMode(false); stdin.pause(); },
  };
}

/** Resolves with the next episode key (ignores other keys). */
export function nextEpisodeKey(keys: KeySource, accept: readonly EpisodeKey[] = ["save", "fail", "discard", "quit"]): Promise<EpisodeKey> {
  return new Promise((resolve) => {
    const off = keys.onKey((k) => { if (k.kind === "episode" && accept.includes(k.key)) { off(); resolve(k.key); } });
  });
}
