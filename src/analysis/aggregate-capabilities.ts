/**
 * Aggregation over labeling runs (TRACE paper, step 2; semantics of the reference code's aggregate_capabilities.py):
 * a capability passes a run when `Cov ≥ coverage` and `Δ ≥ gap`; it is kept when it passes in at least `minRuns` runs;
 * means and population standard deviations are taken over the runs that label it; kept capabilities rank by mean Δ.
 */
import { runMetrics, type CapabilityRunMetrics } from "./capability-metrics.js";
import type { RunFile } from "./run-file.js";

/** The paper's thresholds: ρ = 0.10, δ = 0.20, kept when passing in 8 of 10 runs. */
export const PAPER_THRESHOLDS: AggregationThresholds = { coverage: 0.1, gap: 0.2, minRuns: 8 };

/** How many example failed tasks a capability lists (the reference code's 8). */
const EXAMPLE_FAILED_CASES = 8;

/** The meaningful range of each fractional threshold: Cov is a share of failed tasks, Δ a difference of two shares. */
export const THRESHOLD_RANGES = {
  coverage: { minimum: 0, maximum: 1 },
  gap: { minimum: -1, maximum: 1 },
} as const satisfies Record<"coverage" | "gap", { minimum: number; maximum: number }>;

export interface AggregationThresholds {
  /** ρ: minimum coverage in a run. */
  coverage: number;
  /** δ: minimum contrastive gap in a run. */
  gap: number;
  /** m: minimum number of passing runs to keep a capability. */
  minRuns: number;
}

/** One capability's row of `selected_capabilities.json` (TRACE reference format; `status` is kept or rejected). */
export interface CapabilitySelection {
  skill: string;
  description: string;
  mean_cov: number;
  std_cov: number;
  mean_delta: number;
  std_delta: number;
  n_runs_passed: number;
  n_runs_total: number;
  passes_consistency: boolean;
  example_failed_cases: string[];
  status: "kept" | "rejected";
}

/** A capability's numbers in one run (null for a run that does not label it). */
export interface CapabilityRunScore {
  attempt: number;
  cov: number;
  delta: number;
  er_minus: number;
  er_plus: number;
  passed: boolean;
}

export interface CapabilityScore extends CapabilitySelection {
  per_run: (CapabilityRunScore | null)[];
  /** The share of bootstrap resamples of the analysed tasks in which it would be kept (`keepStability`; our addition). */
  kept_in_resamples?: number;
}

export interface AggregationResult {
  thresholds: AggregationThresholds;
  runs: number;
  /** Every capability: kept ones first, each group ranked by mean Δ (ties by name). */
  capabilities: CapabilityScore[];
}

/** Arithmetic mean (0 for no values, as the reference code). */
function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((sum, value) => sum + value, 0) / values.length;
}

/** Population standard deviation, `sqrt(mean((x − mean)²))` as numpy's `std` (0 for no values). */
export function populationStandardDeviation(values: readonly number[]): number {
  const center = mean(values);
  return Math.sqrt(mean(values.map((value) => (value - center) ** 2)));
}

function byCodePoint(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}

function passes(metrics: CapabilityRunMetrics | undefined, thresholds: AggregationThresholds): boolean {
  return metrics !== undefined && metrics.cov >= thresholds.coverage && metrics.delta >= thresholds.gap;
}

/** Aggregates labeling runs; `descriptions` maps capability names to their discovery descriptions. */
export function aggregateCapabilities(
  runs: readonly RunFile[],
  options: { thresholds?: AggregationThresholds; descriptions?: ReadonlyMap<string, string> } = {},
): AggregationResult {
  const thresholds = options.thresholds ?? PAPER_THRESHOLDS;
  const perRun = runs.map((run) => runMetrics(run));
  const names = [...new Set(perRun.flatMap((metrics) => [...metrics.keys()]))].sort(byCodePoint);
  const scores = names.map((skill): CapabilityScore => {
    const labeled = perRun.map((metrics) => metrics.get(skill)).filter((metrics) => metrics !== undefined);
    const covs = labeled.map((metrics) => metrics.cov);
    const deltas = labeled.map((metrics) => metrics.delta);
    const passedRuns = perRun.filter((metrics) => passes(metrics.get(skill), thresholds)).length;
    const failedCases = new Set(labeled.flatMap((metrics) => metrics.lackingFailed));
    const keep = passedRuns >= thresholds.minRuns;
    return {
      skill,
      description: options.descriptions?.get(skill) ?? "",
      mean_cov: mean(covs),
      std_cov: populationStandardDeviation(covs),
      mean_delta: mean(deltas),
      std_delta: populationStandardDeviation(deltas),
      n_runs_passed: passedRuns,
      n_runs_total: runs.length,
      passes_consistency: keep,
      example_failed_cases: [...failedCases].sort(byCodePoint).slice(0, EXAMPLE_FAILED_CASES),
      status: keep ? "kept" : "rejected",
      per_run: perRun.map((metrics, index) => {
        const found = metrics.get(skill);
        if (found === undefined) return null;
        const attempt = runs[index]?.attempt ?? index + 1;
        return { attempt, cov: found.cov, delta: found.delta, er_minus: found.erMinus, er_plus: found.erPlus, passed: passes(found, thresholds) };
      }),
    };
  });
  // Stable sorts: names stay in code-point order within equal mean Δ, as in the reference code.
  const ranked = [...scores].sort((left, right) => right.mean_delta - left.mean_delta);
  return { thresholds, runs: runs.length, capabilities: [...ranked.filter((score) => score.passes_consistency), ...ranked.filter((score) => !score.passes_consistency)] };
}

/** The kept capabilities, ranked by mean Δ, as `selected_capabilities.json` rows. */
export function selectedCapabilities(result: AggregationResult): CapabilitySelection[] {
  return result.capabilities.filter((score) => score.status === "kept").map(({ per_run: _perRun, kept_in_resamples: _kept, ...selection }) => selection);
}
