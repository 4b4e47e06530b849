/**
 * `trace pool`: one comparison report over several runs' comparisons — the same design read on several evaluation
 * splits, or its training seeds spread over runs. Every (run, training seed) pair is one replicate, renumbered 0, 1, …
 * in the order the runs are given and by seed within a run; TRACE is paired with each method within a replicate, so
 * the pooled spread is that of the paired difference over splits and seeds together. Nothing is trained or sampled:
 * it reads `RUN/compare/seed-N/<method>/result.json` and writes comparison.md, the CSVs and the curves. Runs whose
 * `config.json` names the same evaluation tasks form one split; with two or more splits the report also gives TRACE's
 * lead over split means, the error bar that counts each split once.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { TraceError } from "../spec/trace-error.js";
import { openRunDirectory } from "../run/run-directory.js";
import { readMethodSeedRecords } from "./method-seed-record.js";
import type { EvaluationSplit, MethodSeedResult } from "./report/comparison-types.js";
import { writeComparisonReport } from "./report/write-comparison-report.js";

/** A run given to `trace pool` has no comparison results, or is given twice. */
export class PoolComparisonsError extends TraceError {
  override readonly name = "PoolComparisonsError";
  constructor(
    readonly runDirectory: string,
    message: string,
  ) {
    super(message, { category: "usage" });
  }
}

/** One replicate of the pooled report: which run and training seed its seed number stands for. */
export interface PooledReplicate {
  replicate: number;
  runDirectory: string;
  seed: number;
}

/** Every run's results with seeds renumbered as replicates, and the replicates in order. */
export function poolResults(runs: readonly { runDirectory: string; results: readonly MethodSeedResult[] }[]): { results: MethodSeedResult[]; replicates: PooledReplicate[] } {
  const replicates: PooledReplicate[] = [];
  const results: MethodSeedResult[] = [];
  for (const run of runs) {
    const seeds = [...new Set(run.results.map((result) => result.seed))].sort((left, right) => left - right);
    for (const seed of seeds) {
      const replicate = replicates.length;
      replicates.push({ replicate, runDirectory: run.runDirectory, seed });
      for (const result of run.results.filter((candidate) => candidate.seed === seed)) results.push({ ...result, seed: replicate });
    }
  }
  return { results, replicates };
}

/**
 * The evaluation tasks a run's `config.json` names, as a key and a name: TRACE-mini's held-out seed range (and
 * families), or for any other target its whole `target` section; undefined when the run has no readable config.
 */
export function evaluationSplitOf(runDirectory: string): { key: string; name: string } | undefined {
  const file = path.join(runDirectory, "config.json");
  if (!existsSync(file)) return undefined;
  let target: unknown;
  try {
    target = (JSON.parse(readFileSync(file, "utf8")) as { target?: unknown }).target;
  } catch {
    return undefined;
  }
  if (target === null || typeof target !== "object") return undefined;
  const { kind, evaluationSeedStart: start, evaluationSeedCount: count, families } = target as Record<string, unknown>;
  if (kind === "mini" && typeof start === "number" && typeof count === "number") {
    const name = `mini ${start}–${start + count - 1}`;
    return { key: JSON.stringify([name, families ?? null]), name };
  }
  return { key: JSON.stringify(target), name: `the target of ${runDirectory}` };
}

/** Groups the replicates by their run's evaluation split (a run without a readable config is a split of its own), in first-seen order. */
export function splitsOf(replicates: readonly PooledReplicate[]): EvaluationSplit[] {
  const splits = new Map<string, { name: string; replicates: number[] }>();
  // One config read per run, not per replicate.
  const known = new Map<string, { key: string; name: string }>();
  for (const replicate of replicates) {
    const split = known.get(replicate.runDirectory) ?? evaluationSplitOf(replicate.runDirectory) ?? { key: `run ${replicate.runDirectory}`, name: replicate.runDirectory };
    known.set(replicate.runDirectory, split);
    const entry = splits.get(split.key) ?? { name: split.name, replicates: [] };
    entry.replicates.push(replicate.replicate);
    splits.set(split.key, entry);
  }
  return [...splits.values()];
}

/** Every run's comparison results; refuses a run given twice or one without results. */
export function readPoolRuns(runDirectories: readonly string[]): { runDirectory: string; results: MethodSeedResult[] }[] {
  const seen = new Set<string>();
  return runDirectories.map((runDirectory) => {
    const resolved = path.resolve(runDirectory);
    if (seen.has(resolved)) throw new PoolComparisonsError(runDirectory, `${runDirectory} is given more than once: each run's seeds would count twice`);
    seen.add(resolved);
    const results = readMethodSeedRecords(openRunDirectory(runDirectory).compareDirectory);
    if (results.length === 0) throw new PoolComparisonsError(runDirectory, `${runDirectory} has no comparison results (compare/seed-<N>/<method>/result.json; written by \`trace compare\` or the compare stage)`);
    return { runDirectory, results };
  });
}

/** Reads every run's comparison results, pools them and writes the report into `outDirectory`; returns the files, replicates and splits. */
export async function poolComparisons(runDirectories: readonly string[], outDirectory: string): Promise<{ files: string[]; replicates: PooledReplicate[]; splits: EvaluationSplit[] }> {
  const runs = readPoolRuns(runDirectories);
  const { results, replicates } = poolResults(runs);
  const names = replicates.map((replicate) => `${replicate.runDirectory} seed ${replicate.seed}`);
  const splits = splitsOf(replicates);
  const files = await writeComparisonReport(outDirectory, results, {
    title: `Pooled comparison of ${runs.length} run${runs.length === 1 ? "" : "s"} (${replicates.length} replicates)`,
    budget: Math.max(...results.map((result) => result.budget.limit)),
    budgetRule: "each run's own, per training seed (every result records its limit)",
    replicates: names,
    splits,
  });
  return { files, replicates, splits };
}
