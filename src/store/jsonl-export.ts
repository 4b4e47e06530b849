/** Episodes out of the store as JSON Lines (any environment), and GRPO's training episodes likewise. */
import { closeSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import type { TrainingEpisodeFilter } from "./training-episodes.js";
import type { EpisodeFilter, TrajectoryStore } from "./trajectory-store.js";

/** Writes one JSON line per record to a temporary file and renames it, so `file` is never half-written; returns the count. */
function writeJsonLines(file: string, records: Iterable<unknown>): number {
  const temporary = `${file}.${process.pid}.tmp`;
  const descriptor = openSync(temporary, "w");
  let count = 0;
  try {
    for (const record of records) {
      writeSync(descriptor, JSON.stringify(record) + "\n");
      count++;
    }
  } catch (error) {
    closeSync(descriptor);
    rmSync(temporary, { force: true });
    throw error;
  }
  closeSync(descriptor);
  renameSync(temporary, file);
  return count;
}

/**
 * Writes episodes (all, or those matching `filter`) as JSON Lines, one `EpisodeRecord` per line with tokens inline
 * on their assistant messages. Returns the number of lines.
 */
export function exportJsonl(store: TrajectoryStore, file: string, filter: EpisodeFilter = {}): number {
  return writeJsonLines(file, store.iterateEpisodes(filter));
}

/** Writes training episodes (an adapter's, an iteration's) as JSON Lines, one `TrainingEpisodeRecord` per line. */
export function exportTrainingJsonl(store: TrajectoryStore, file: string, filter: TrainingEpisodeFilter = {}): number {
  return writeJsonLines(file, store.training.iterate(filter));
}
