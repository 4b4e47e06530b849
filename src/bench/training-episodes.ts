/**
 * `npm run bench:training-episodes -- RUN_DIR [RUN_DIR…]`: what each GRPO-trained adapter of a run spent its time on,
 * read from the `metrics.jsonl` every GRPO run writes (the train stage's capability adapters under `adapters/`, and
 * the comparison's GRPO-based methods under `compare/seed-S/METHOD/ADAPTER/`), so that two runs (two bases, two
 * machines) can be set side by side without keeping their episodes: episodes sampled, sampling rounds, the share of
 * groups with a reward spread (only those are trained on), sampled assistant turns per trained episode, trained tokens
 * per sequence, and seconds per sampled episode (sampling and the update together). Nothing is sampled or trained.
 */
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { markdownTable } from "markdown-table";
import { readMetricsLines } from "../dashboard/training-view.js";
import type { GrpoIterationMetrics } from "../training/grpo-types.js";

function fail(message: string): never {
  console.error(`bench:training-episodes: ${message}`);
  process.exit(1);
}

/** Every GRPO metrics file of a run directory, named by where it sits (`train/ADAPTER`, `compare/seed-S/METHOD`). */
function metricsFiles(runDirectory: string): { name: string; file: string }[] {
  const found: { name: string; file: string }[] = [];
  const children = (directory: string) => (existsSync(directory) ? readdirSync(directory, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name).sort() : []);
  for (const adapter of children(path.join(runDirectory, "adapters"))) {
    const file = path.join(runDirectory, "adapters", adapter, "metrics.jsonl");
    if (existsSync(file)) found.push({ name: `train/${adapter}`, file });
  }
  for (const seed of children(path.join(runDirectory, "compare")).filter((name) => /^seed-\d+$/.test(name))) {
    for (const method of children(path.join(runDirectory, "compare", seed))) {
      for (const adapter of children(path.join(runDirectory, "compare", seed, method))) {
        const file = path.join(runDirectory, "compare", seed, method, adapter, "metrics.jsonl");
        if (existsSync(file)) found.push({ name: `compare/${seed}/${method}`, file });
      }
    }
  }
  return found;
}

const runDirectories = process.argv.slice(2).filter((argument) => argument !== "--");
if (runDirectories.length === 0) fail("name one or more run directories (RUN_DIR [RUN_DIR…])");
type Counted = "episodes" | "groupsKept" | "groupsDropped" | "samplingRounds" | "turnsKept" | "turnsDropped" | "sequences" | "tokens" | "seconds";
const sum = (lines: GrpoIterationMetrics[], field: Counted) => lines.reduce((total, line) => total + line[field], 0);
const rows: string[][] = [];
for (const runDirectory of runDirectories) {
  if (!existsSync(runDirectory)) fail(`no run directory ${runDirectory}`);
  const files = metricsFiles(runDirectory);
  if (files.length === 0) fail(`${runDirectory} holds no GRPO metrics (adapters/ADAPTER/metrics.jsonl or compare/seed-S/METHOD/ADAPTER/metrics.jsonl)`);
  for (const { name, file } of files) {
    const { iterations: lines, problems } = readMetricsLines(file);
    if (problems.length > 0) fail(`${file}: ${problems[0]}`);
    const episodes = sum(lines, "episodes");
    const kept = sum(lines, "groupsKept");
    const groups = kept + sum(lines, "groupsDropped");
    // Turns are counted over the kept groups only (those trained on), so per episode of those groups.
    const trainedEpisodes = groups === 0 ? 0 : (episodes * kept) / groups;
    const sequences = sum(lines, "sequences");
    const seconds = sum(lines, "seconds");
    rows.push([
      runDirectory,
      name,
      String(lines.length),
      String(episodes),
      String(sum(lines, "samplingRounds")),
      groups === 0 ? "-" : (kept / groups).toFixed(2),
      trainedEpisodes === 0 ? "-" : ((sum(lines, "turnsKept") + sum(lines, "turnsDropped")) / trainedEpisodes).toFixed(2),
      sequences === 0 ? "-" : (sum(lines, "tokens") / sequences).toFixed(1),
      seconds.toFixed(1),
      episodes === 0 ? "-" : (seconds / episodes).toFixed(3),
    ]);
  }
}
console.log("\nGRPO's training episodes per adapter (metrics.jsonl; turns per episode of the groups trained on)\n");
console.log(
  markdownTable([["run", "adapter", "iterations", "episodes", "sampling rounds", "informative groups", "turns / trained episode", "tokens / sequence", "seconds", "seconds / episode"], ...rows], {
    align: ["l", "l", "r", "r", "r", "r", "r", "r", "r", "r"],
  }),
);
