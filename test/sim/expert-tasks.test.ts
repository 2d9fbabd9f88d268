/** Scripted experts for the X-One-only tasks against the real SimWorld, one seed each. */
import { test } from "node:test";
import { checkEpisode, expertEpisode } from "./expertEpisode.js";

for (const taskId of ["swap-blocks", "rearrange-blocks", "cover-blocks"]) {
  test(`expert solves ${taskId} on x-one (seed 101)`, async () => {
    checkEpisode("x-one", taskId, await expertEpisode("x-one", taskId, 101));
  });
}
