/**
 * How many analysed tasks a run's analysis needs (`npm run bench:analysis-tasks -- --run-dir RUN [--run-dir RUN…]
 * [--tasks 30,60,90] [--resamples 1000]`): for each capability of each run's analysis, the share of random subsets of
 * m of its analysed tasks (a task's trials together) on which the analysis, with the run's own thresholds, would keep
 * it, for every m asked; then the bootstrap share over all its tasks (the report's "kept in resamples") and the
 * decision taken. A user with few target tasks reads from it whether a capability their analysis kept, or missed, is
 * one more tasks would settle. The LLM analysis (`analysis/`) is read when present, else the reference labeler's.
 */
import path from "node:path";
import { parseArgs } from "node:util";
import { markdownTable } from "markdown-table";
import { readScoresFile } from "../analysis/analysis-directory.js";
import { keepStability } from "../analysis/keep-stability.js";
import { taskOfKey } from "../analysis/trajectory-key.js";
import { listRunFiles, readRunFile } from "../analysis/run-file.js";
import { openRunDirectory } from "../run/run-directory.js";

const { values } = parseArgs({ options: { "run-dir": { type: "string", multiple: true }, tasks: { type: "string" }, resamples: { type: "string", default: "1000" } } });
const runDirectories = values["run-dir"] ?? [];
if (runDirectories.length === 0) throw new Error("give at least one --run-dir (a run directory whose analyze stage has run)");
const resamples = Number.parseInt(values.resamples, 10);
if (!Number.isInteger(resamples) || resamples < 1) throw new Error(`--resamples must be a positive integer, got ${values.resamples}`);
const asked = values.tasks?.split(",").map((text) => {
  const value = Number.parseInt(text, 10);
  if (!Number.isInteger(value) || value < 1 || String(value) !== text.trim()) throw new Error(`--tasks must be positive integers separated by commas, got ${values.tasks}`);
  return value;
});

const percent = (share: number) => `${(100 * share).toFixed(0)}%`;
for (const root of runDirectories) {
  const run = openRunDirectory(root);
  const directory = run.scoredAnalysisDirectory();
  if (directory === undefined) throw new Error(`${root}: no analysis (run \`trace run CONFIG --run-dir ${root} --until analyze\` first)`);
  const scores = readScoresFile(directory);
  const runs = listRunFiles(directory).map((file) => readRunFile(file));
  const analysed = new Set(runs.flatMap((runFile) => Object.values(runFile.labels).flatMap((lists) => Object.values(lists).flat().map(taskOfKey)))).size;
  const sizes = (asked ?? [0.25, 0.5, 0.75].map((fraction) => Math.max(1, Math.round(fraction * analysed)))).filter((size) => size < analysed);
  const columns = sizes.map((size) => keepStability(runs, scores.thresholds, { resamples, tasks: size }));
  const bootstrap = keepStability(runs, scores.thresholds, { resamples });
  const { coverage, gap, minRuns } = scores.thresholds;
  console.log(`\n${root}: ${path.relative(root, directory) || "."}, ${analysed} analysed tasks, ${runs.length} labeling run${runs.length === 1 ? "" : "s"}; kept when Cov ≥ ${coverage} and Δ ≥ ${gap} in ${minRuns}; ${resamples} draws per column\n`);
  console.log(
    markdownTable([
      ["capability", "Δ (mean)", ...sizes.map((size) => `kept on ${size} tasks`), `bootstrap of ${analysed}`, "kept"],
      ...scores.capabilities.map((score) => [score.skill, score.mean_delta.toFixed(3), ...columns.map((shares) => percent(shares.get(score.skill) ?? 0)), percent(bootstrap.get(score.skill) ?? 0), score.status]),
    ]),
  );
}
