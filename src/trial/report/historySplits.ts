/**
 * Retrieval's split of each episode's history against the truth it never reads: the run's events
 * name the demonstration's frames (`demonstration_end`) and each distractor session's (`interference`),
 * and retrieval logs its split and the session it retrieved on the episode's first tick (a `memory`
 * event, op `history_split`). Pure over the event lines.
 */
import { boundaryScores } from "../../memory/index.js";

/** One episode's split beside the true session starts. */
export interface HistorySplit {
  episode: number;
  /** Session starts retrieval found, and the true ones (0 first). */
  predicted: number[];
  truth: number[];
  /** The demonstration's frames (history 0..n-1), 0 when there was none. */
  demonstrationFrames: number;
  /** The history frames retrieved on the first tick, [from, to). */
  retrieved: [number, number];
}

type Line = {
  event?: string; episode?: number; frames?: number; session_frames?: number[];
  op?: { kind?: string; starts?: number[]; retrieved?: [number, number] };
};

/** The splits of a run's episodes, from its events (none when retrieval did not run). */
export function historySplitsOf(lines: readonly Line[]): HistorySplit[] {
  const demo = new Map<number, number>(), distractors = new Map<number, number[]>();
  const out: HistorySplit[] = [];
  for (const l of lines) {
    const episode = l.episode ?? -1;
    if (l.event === "demonstration_end") demo.set(episode, l.frames ?? 0);
    else if (l.event === "interference") distractors.set(episode, l.session_frames ?? []);
    else if (l.event === "memory" && l.op?.kind === "history_split") {
      const demonstrationFrames = demo.get(episode) ?? 0;
      const truth = demonstrationFrames > 0 ? [0] : [];
      let at = demonstrationFrames;
      for (const n of distractors.get(episode) ?? []) { truth.push(at); at += n; }
      out.push({
        episode, predicted: l.op.starts ?? [], truth, demonstrationFrames, retrieved: l.op.retrieved ?? [0, 0],
      });
    }
  }
  return out;
}

/** Mean boundary precision and recall (within 1 frame); episodes whose retrieved session held the demonstration. */
export function splitScores(splits: readonly HistorySplit[]): {
  precision: number; recall: number; demonstrationWhole: number; withDemonstration: number;
} {
  const scores = splits.map((s) => boundaryScores(s.predicted, s.truth));
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  const withDemo = splits.filter((s) => s.demonstrationFrames > 0);
  return {
    precision: mean(scores.map((s) => s.precision)), recall: mean(scores.map((s) => s.recall)),
    demonstrationWhole: withDemo.filter((s) => s.retrieved[0] === 0 && s.retrieved[1] >= s.demonstrationFrames)
      .length,
    withDemonstration: withDemo.length,
  };
}
