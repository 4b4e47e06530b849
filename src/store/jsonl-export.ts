/** Episodes out of the store as JSON Lines (any environment). */
import { closeSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import type { EpisodeFilter, TrajectoryStore } from "./trajectory-store.js";

/**
 * Writes episodes (all, or those matching `filter`) as JSON Lines, one `EpisodeRecord` per line with tokens inline
 * on their assistant messages. Written to a temporary file and renamed, so `file` is never half-written.
 * Returns the number of lines.
 */
export function exportJsonl(store: TrajectoryStore, file: string, filter: EpisodeFilter = {}): number {
  const temporary = `${file}.${process.pid}.tmp`;
  const descriptor = openSync(temporary, "w");
  let count = 0;
  try {
    for (const record of store.iterateEpisodes(filter)) {
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
