/**
 * `trace show RUN`: pass rate per environment and overall, pass^k, terminations, tokens and cost of a run; per task the
 * terminations and the failed / unfinished episodes; the errors (failed episodes, agent_error / user_error reasons);
 * for ToolSandbox episodes, ToolSandbox's own figures per scenario category (mean similarity, perfect count, turns).
 */
import { existsSync } from "node:fs";
import type { Command } from "commander";
import { formatCategorySummary, toolSandboxCategorySummary, toolSandboxResults, type CategoryFigures } from "../envs/toolsandbox/category-report.js";
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

/** A run's report, and ToolSandbox's figures per category when the run holds graded ToolSandbox episodes. */
export interface ShowResult {
  report: RunReport;
  toolsandboxCategories?: Record<string, CategoryFigures>;
}

/** Reads the run's store and builds its report (every episode: finished ones graded, failed and unfinished counted). */
export function showRun(runDirectory: string): ShowResult {
  const file = openRunDirectory(runDirectory).storeFile;
  if (!existsSync(file)) throw new NotARunError(runDirectory);
  const store = openTrajectoryStore(file);
  try {
    const episodes = store.listEpisodes();
    const toolsandbox = toolSandboxResults(episodes);
    return { report: buildRunReport(episodes), ...(toolsandbox.length === 0 ? {} : { toolsandboxCategories: toolSandboxCategorySummary(toolsandbox) }) };
  } finally {
    store.close();
  }
}

/** The report as `trace show` prints it: the run's table, then ToolSandbox's per-category figures when it has them. */
export function formatShowResult(result: ShowResult): string {
  const text = formatRunReport(result.report);
  if (result.toolsandboxCategories === undefined) return text;
  return `${text}\n\nToolSandbox per category (mean similarity, perfect conversations, turns; as trace toolsandbox report):\n${formatCategorySummary(result.toolsandboxCategories)}`;
}

export function registerShowCommand(program: Command): void {
  addRunDirectoryArgument(
    program
      .command("show")
      .description("summarise a run: pass rate per environment and overall, pass^k, terminations, tokens, cost; terminations per task and why episodes failed; ToolSandbox's figures per category"),
  )
    .option("--json", "end with one JSON line: the report (with toolsandboxCategories for ToolSandbox episodes)")
    .action((runDirectory: string, options: { json?: boolean }) => {
      const result = showRun(runDirectory);
      process.stdout.write(formatShowResult(result) + "\n");
      if (options.json) process.stdout.write(JSON.stringify(result.toolsandboxCategories === undefined ? result.report : { ...result.report, toolsandboxCategories: result.toolsandboxCategories }) + "\n");
    });
}
