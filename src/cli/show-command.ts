/**
 * `trace show RUN`: pass rate per environment and overall, pass^k, terminations, tokens and cost of a run; per task the
 * terminations and the failed / unfinished episodes; the errors (failed episodes, agent_error / user_error reasons).
 */
import { existsSync } from "node:fs";
import type { Command } from "commander";
import { buildRunReport, formatRunReport, type RunReport } from "../rollout/run-report.js";
import { openRunDirectory } from "../run/run-directory.js";
import { openTrajectoryStore } from "../store/trajectory-store.js";
import { TraceError } from "../spec/trace-error.js";
import { addRunDirectoryArgument } from "./run-directory-option.js";

/** A path that is not a run directory (no `store.sqlite`). */
export class NotARunError extends TraceError {
  override readonly name = "NotARunError";
  constructor(readonly runDirectory: string) {
    super(`${runDirectory} is not a run directory (no store.sqlite)`, { category: "usage" });
  }
}

/** Reads the run's store and builds its report (every episode: finished ones graded, failed and unfinished counted). */
function showRun(runDirectory: string): RunReport {
  const file = openRunDirectory(runDirectory).storeFile;
  if (!existsSync(file)) throw new NotARunError(runDirectory);
  const store = openTrajectoryStore(file);
  try {
    return buildRunReport(store.listEpisodes());
  } finally {
    store.close();
  }
}

export function registerShowCommand(program: Command): void {
  addRunDirectoryArgument(
    program
      .command("show")
      .description("summarise a run: pass rate per environment and overall, pass^k, terminations, tokens, cost; terminations per task and why episodes failed"),
  )
    .option("--json", "end with one JSON line: the report")
    .action((runDirectory: string, options: { json?: boolean }) => {
      const report = showRun(runDirectory);
      process.stdout.write(formatRunReport(report) + "\n");
      if (options.json) process.stdout.write(JSON.stringify(report) + "\n");
    });
}
