/**
 * How firmly the analysis keeps or rejects each capability: the share of bootstrap resamples of the analysed tasks in
 * which the capability would still be kept (Cov ≥ ρ and Δ ≥ δ in at least `minRuns` labeling runs). Beyond the paper,
 * which reports one decision: a capability kept on 0.203 against δ = 0.2 carries the same "kept" as one on 0.7, and
 * whether the first is kept depends on which tasks happened to be analysed (TRACE-mini, fifteenth session: on 60 of the
 * same tasks the precondition capability fell to Δ 0.18 and TRACE lost its lead).
 *
 * A resample draws as many tasks as were analysed, with replacement (the bootstrap); with `tasks` below that, it
 * draws that many without replacement instead ("had only m of these tasks been analysed", `npm run bench:analysis-tasks`).
 * A task's trials (`key#2`, …) travel together, as they share the task's difficulty. Every labeling run is reweighted with the same draw. Coverage's denominator is the
 * drawn weight of the run's failed trajectories that carry any label (a failure left unlabeled by every capability is
 * not in a run file's lists), so a resample's Cov can differ slightly from the point estimate when labels are missing.
 */
import { createModuleSdk } from "../envs/modules/module-sdk.js";
import type { AggregationThresholds } from "./aggregate-capabilities.js";
import type { RunFile } from "./run-file.js";
import { taskOfKey } from "./trajectory-key.js";

/** Options of `keepStability`. */
export interface KeepStabilityOptions {
  /** Bootstrap resamples (default 1000). */
  resamples?: number;
  /** Seed of the resampling (default 0): the same runs give the same shares. */
  seed?: number;
  /** Tasks per resample, drawn without replacement (default: every analysed task, drawn with replacement). */
  tasks?: number;
}

/** Decisions taken in fewer than this share of resamples, or more than 1 − it, are firm; the rest marginal. */
export const MARGINAL_SHARE = 0.1;

/** Whether a share of resamples leaves the keep decision in doubt (between `MARGINAL_SHARE` and 1 − it). */
export function isMarginal(keptShare: number): boolean {
  return keptShare > MARGINAL_SHARE && keptShare < 1 - MARGINAL_SHARE;
}

/** Per capability, the share of resamples in which it is kept. Capabilities no run labels are absent. */
export function keepStability(runs: readonly RunFile[], thresholds: AggregationThresholds, options: KeepStabilityOptions = {}): Map<string, number> {
  const resamples = options.resamples ?? 1000;
  if (!Number.isInteger(resamples) || resamples < 1) throw new RangeError(`resamples must be a positive integer, got ${resamples}`);
  // Tasks in first-seen order, and every list of every run as indices into them.
  const taskIndex = new Map<string, number>();
  const indexOf = (key: string): number => {
    const task = taskOfKey(key);
    let index = taskIndex.get(task);
    if (index === undefined) taskIndex.set(task, (index = taskIndex.size));
    return index;
  };
  const prepared = runs.map((run) => {
    const failed = new Set<string>();
    const capabilities = Object.entries(run.labels).map(([skill, lists]) => {
      for (const key of [...lists.lacking_failed, ...lists.present_failed, ...lists.na_failed]) failed.add(key);
      return {
        skill,
        lackingFailed: lists.lacking_failed.map(indexOf),
        presentFailed: lists.present_failed.map(indexOf),
        lackingPassed: lists.lacking_passed.map(indexOf),
        presentPassed: lists.present_passed.map(indexOf),
      };
    });
    return { failed: [...failed].map(indexOf), capabilities };
  });
  const skills = [...new Set(runs.flatMap((run) => Object.keys(run.labels)))];
  const kept = new Map(skills.map((skill) => [skill, 0]));
  const tasks = taskIndex.size;
  if (tasks === 0) return new Map(skills.map((skill) => [skill, 0]));
  const subsample = options.tasks;
  if (subsample !== undefined && (!Number.isInteger(subsample) || subsample < 1 || subsample > tasks)) {
    throw new RangeError(`tasks must be an integer from 1 to the ${tasks} analysed, got ${subsample}`);
  }
  const random = createModuleSdk().random(options.seed ?? 0);
  const order = Array.from({ length: tasks }, (_, index) => index);
  const weights = new Float64Array(tasks);
  const total = (indices: readonly number[]) => indices.reduce((sum, index) => sum + (weights[index] ?? 0), 0);
  const ratio = (numerator: number, denominator: number) => (denominator > 0 ? numerator / denominator : 0);
  for (let resample = 0; resample < resamples; resample += 1) {
    weights.fill(0);
    if (subsample === undefined) {
      for (let draw = 0; draw < tasks; draw += 1) {
        const task = random.int(0, tasks - 1);
        weights[task] = (weights[task] ?? 0) + 1;
      }
    } else {
      // The first `subsample` places of a partial Fisher–Yates shuffle: that many distinct tasks.
      for (let place = 0; place < subsample; place += 1) {
        const other = random.int(place, tasks - 1);
        [order[place], order[other]] = [order[other]!, order[place]!];
        weights[order[place]!] = 1;
      }
    }
    const passedRuns = new Map<string, number>();
    for (const run of prepared) {
      const failedWeight = total(run.failed);
      for (const capability of run.capabilities) {
        const lackingFailed = total(capability.lackingFailed);
        const cov = ratio(lackingFailed, failedWeight);
        const lackingPassed = total(capability.lackingPassed);
        const delta = ratio(lackingFailed, lackingFailed + total(capability.presentFailed)) - ratio(lackingPassed, lackingPassed + total(capability.presentPassed));
        if (cov >= thresholds.coverage && delta >= thresholds.gap) passedRuns.set(capability.skill, (passedRuns.get(capability.skill) ?? 0) + 1);
      }
    }
    for (const skill of skills) if ((passedRuns.get(skill) ?? 0) >= thresholds.minRuns) kept.set(skill, (kept.get(skill) ?? 0) + 1);
  }
  return new Map([...kept].map(([skill, count]) => [skill, count / resamples]));
}
