/** Progress lines for `trace run`'s long stages: rollouts as counts, pass rate and ETA; iterations with an ETA. */
import { formatDuration, formatProgress, type RolloutProgress } from "../rollout/rollout-runner.js";

/**
 * A `runRollouts` progress callback that logs `label: 12/40 (30%) finished … eta 02:30` for the first completed
 * episode, then every `every` episodes (default: a tenth of the total, at least 1), and the last.
 */
export function rolloutProgressLog(log: (line: string) => void, label: string, every?: number): (progress: RolloutProgress) => void {
  let printed = -1;
  return (progress) => {
    if (progress.last === undefined || progress.done === printed) return;
    const step = every ?? Math.max(1, Math.ceil(progress.total / 10));
    if (printed === -1 || progress.done === progress.total || progress.done - printed >= step) {
      log(`  ${label}: ${formatProgress(progress)}`);
      printed = progress.done;
    }
  };
}

/** The time left after `done` of `total` steps that took `secondsSoFar`, formatted (`--:--` before the first). */
export function remainingTime(done: number, total: number, secondsSoFar: number): string {
  return formatDuration(done === 0 ? null : ((secondsSoFar / done) * (total - done)) * 1000);
}
