/**
 * The example failed trajectories the generation agent reads: analysis lists them by key (`airline:12`, `retail:3#1`)
 * in `example_failed_cases`; when the run's store holds those episodes, they are rendered compactly (as the analyst
 * saw them), else the keys themselves are passed on.
 */
import { existsSync } from "node:fs";
import { renderTrajectory } from "../../rollout/render-trajectory.js";
import { trajectoryKey } from "../../analysis/trajectory-key.js";
import { openTrajectoryStore } from "../../store/trajectory-store.js";

/** How many failed trajectories the generator is shown, and the longest rendering of each (characters). */
export const EXAMPLE_TRAJECTORIES = 3;
export const EXAMPLE_CHARACTERS = 4000;

/** Renders up to EXAMPLE_TRAJECTORIES of `keys` from the store (a run's `store.sqlite`, which may not exist); keys without a stored episode stay as they are. */
export function failedTrajectoryExamples(storeFile: string, keys: readonly string[]): string[] {
  const chosen = keys.slice(0, EXAMPLE_TRAJECTORIES);
  if (!existsSync(storeFile) || chosen.length === 0) return [...chosen];
  const store = openTrajectoryStore(storeFile);
  try {
    const byKey = new Map(store.listEpisodes({ status: "finished" }).map((episode) => [trajectoryKey(episode), episode]));
    return chosen.map((key) => {
      const episode = byKey.get(key);
      if (episode === undefined || episode.messages === null) return key;
      const rendered = renderTrajectory(
        { key, failed: episode.success !== true, reward: episode.reward, termination: episode.termination, messages: episode.messages },
        { maxToolResultChars: 300, maxMessageChars: 600 },
      ).text;
      return rendered.length > EXAMPLE_CHARACTERS ? `${rendered.slice(0, EXAMPLE_CHARACTERS)}\n… (cut)` : rendered;
    });
  } finally {
    store.close();
  }
}
