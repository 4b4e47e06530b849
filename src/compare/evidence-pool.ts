/**
 * TRACE's lead over each method pooled over evaluation splits of two kinds: splits whose result files are at hand (run
 * directories, as `trace pool` reads them; one paired difference per training seed) and splits known only by their
 * reported summary (each method's mean pass rate, and for some methods the paired lead's mean, sd and seeds ahead), such
 * as splits whose files were lost. The pooled spread over runs is exact from group summaries (mean, sd and count give
 * each group's sum of squares), so the figures are the ones the values themselves would give, up to the summaries'
 * rounding. Used by `npm run bench:pooled-evidence` to recompute the README's pooled figures from the repository.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { TraceError } from "../spec/trace-error.js";
import { poolResults, readPoolRuns, splitsOf } from "./pool-comparisons.js";
import { meanInterval, summarize, type MeanInterval, type Summary } from "./report/summary-statistics.js";
import { pairedDifferences } from "./report/summarize-methods.js";

/**
 * The run directories to pool: `list` (comma-separated) when given, else every `t*` directory under `root` — the fresh
 * TRACE-mini v2 test splits' runs kept in the repository.
 */
export function evidenceRunDirectories(list: string | undefined, root = "docs/results/mini-v2"): string[] {
  if (list !== undefined) return list.split(",").filter((entry) => entry !== "");
  return readdirSync(root, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && /^t\d/.test(entry.name))
    .map((entry) => path.join(root, entry.name))
    .sort();
}

/** The seed range of a TRACE-mini split named as `trace pool` names it ("mini START–END"); undefined for any other name. */
export function miniSplitRange(name: string): { start: number; count: number } | undefined {
  const match = /^mini (\d+)–(\d+)$/.exec(name);
  if (match === null) return undefined;
  const start = Number(match[1]);
  return { start, count: Number(match[2]) - start + 1 };
}

/**
 * The first seeds of every fresh test split pooled by default (the summary-only ones, then the kept run directories'),
 * in that order: what the benches that read each split again on a CPU default to.
 */
export function pooledMiniSplitStarts(summaries = "docs/results/mini-v2/summary-only-splits.json"): number[] {
  const lead = poolEvidence(readSummarySplits(summaries), evidenceRunDirectories(undefined)).find((entry) => entry.method === "base");
  return (lead?.perSplit ?? []).flatMap((split) => {
    const range = miniSplitRange(split.name);
    return range === undefined ? [] : [range.start];
  });
}

/** A file of summary-only splits that does not parse or holds an impossible value. */
export class SummarySplitsError extends TraceError {
  override readonly name = "SummarySplitsError";
  constructor(
    readonly file: string,
    message: string,
  ) {
    super(message, { category: "usage" });
  }
}

const pairedSchema = z.object({ mean: z.number(), sd: z.number().nonnegative(), ahead: z.number().int().nonnegative() });
const summarySplitsSchema = z.object({
  splits: z
    .array(
      z.object({
        name: z.string().min(1),
        seeds: z.number().int().min(2),
        source: z.string().optional(),
        /** Mean pass rate per method, in percent. */
        passRates: z.record(z.string(), z.number().min(0).max(100)),
        /** TRACE − method per seed, in points: mean, sample sd, seeds TRACE was ahead on. */
        paired: z.record(z.string(), pairedSchema).default({}),
      }),
    )
    .min(1),
});

/** One split known by its summary. */
export type SummarySplit = z.infer<typeof summarySplitsSchema>["splits"][number];

/** Reads and checks a summary-only splits file (`{"splits": [{name, seeds, passRates, paired}]}`). */
export function readSummarySplits(file: string): SummarySplit[] {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new SummarySplitsError(file, `cannot read summary-only splits from ${file}: ${(error as Error).message}`);
  }
  const parsed = summarySplitsSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new SummarySplitsError(file, `${file}: ${issue.path.join(".")}: ${issue.message}`);
  }
  for (const split of parsed.data.splits) {
    for (const [method, paired] of Object.entries(split.paired)) {
      if (paired.ahead > split.seeds) throw new SummarySplitsError(file, `${file}: split ${split.name}: TRACE ahead on ${paired.ahead} seeds of ${method}, more than its ${split.seeds}`);
    }
    if (split.passRates.trace === undefined) throw new SummarySplitsError(file, `${file}: split ${split.name} has no pass rate for trace`);
  }
  return parsed.data.splits;
}

/**
 * The summary of all values of several groups, each given by its own summary: the mean weighted by count, and the
 * sample sd from the groups' sums of squares about the pooled mean (Σ (nᵢ − 1) sᵢ² + nᵢ (mᵢ − m)²). Minimum and maximum are
 * the groups' means' (the values are not at hand).
 */
export function combineSummaries(groups: readonly Pick<Summary, "count" | "mean" | "standardDeviation">[]): Summary {
  const count = groups.reduce((sum, group) => sum + group.count, 0);
  if (count === 0) throw new RangeError("cannot combine summaries of no values");
  const mean = groups.reduce((sum, group) => sum + group.count * group.mean, 0) / count;
  const squares = groups.reduce((sum, group) => sum + (group.count - 1) * group.standardDeviation ** 2 + group.count * (group.mean - mean) ** 2, 0);
  return {
    count,
    mean,
    standardDeviation: count > 1 ? Math.sqrt(squares / (count - 1)) : 0,
    minimum: Math.min(...groups.map((group) => group.mean)),
    maximum: Math.max(...groups.map((group) => group.mean)),
  };
}

/** TRACE − one method pooled over splits, in points. */
export interface PooledLead {
  method: string;
  /** Over split means: each split counts once. */
  splits: Summary;
  splitsInterval: MeanInterval | null;
  /** Over runs (every split and training seed one draw); undefined when a summary-only split lacks this method's paired lead. */
  runs?: { summary: Summary; interval: MeanInterval | null; ahead: number };
  /** Per split, in order (summary-only splits first): its name and TRACE's mean lead there. */
  perSplit: { name: string; lead: number }[];
}

/**
 * TRACE's lead over every method that each split has, pooled over the summary-only splits and the splits of the run
 * directories (grouped by the evaluation tasks their `config.json` names, as `trace pool` groups them; a run without
 * comparison results, or given twice, is refused as `trace pool` refuses it).
 */
export function poolEvidence(summarySplits: readonly SummarySplit[], runDirectories: readonly string[]): PooledLead[] {
  const { results, replicates } = poolResults(readPoolRuns(runDirectories));
  const fileSplits = splitsOf(replicates);
  const differences = pairedDifferences(results, "trace");
  const methods = [...new Set([...summarySplits.flatMap((split) => Object.keys(split.passRates)), ...differences.map((difference) => difference.method)])].filter((method) => method !== "trace");
  return methods.flatMap((method): PooledLead[] => {
    const paired = differences.find((difference) => difference.method === method);
    // A method missing from any split is left out: its pooled lead would not be over the same splits.
    if (summarySplits.some((split) => split.passRates[method] === undefined)) return [];
    const fileValues = fileSplits.map((split) => (paired === undefined ? [] : paired.seeds.flatMap((seed, index) => (split.replicates.includes(seed) ? [100 * paired.differences[index]!] : []))));
    if (fileValues.some((values) => values.length === 0)) return [];
    // Each run split's values summarized once: its mean lead, and its group in the pooled spread over runs.
    const fileGroups = fileSplits.map((split, index) => ({ name: split.name, summary: summarize(fileValues[index]!), ahead: fileValues[index]!.filter((value) => value > 0).length }));
    const perSplit = [
      ...summarySplits.map((split) => ({ name: split.name, lead: split.paired[method]?.mean ?? split.passRates.trace! - split.passRates[method]! })),
      ...fileGroups.map((group) => ({ name: group.name, lead: group.summary.mean })),
    ];
    const splits = summarize(perSplit.map((split) => split.lead));
    const lead: PooledLead = { method, splits, splitsInterval: meanInterval(splits), perSplit };
    if (summarySplits.every((split) => split.paired[method] !== undefined)) {
      const summary = combineSummaries([
        ...summarySplits.map((split) => ({ count: split.seeds, mean: split.paired[method]!.mean, standardDeviation: split.paired[method]!.sd })),
        ...fileGroups.map((group) => group.summary),
      ]);
      const ahead = summarySplits.reduce((sum, split) => sum + split.paired[method]!.ahead, 0) + fileGroups.reduce((sum, group) => sum + group.ahead, 0);
      lead.runs = { summary, interval: meanInterval(summary), ahead };
    }
    return [lead];
  });
}
