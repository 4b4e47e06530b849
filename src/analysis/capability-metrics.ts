/**
 * The per-run statistics of one capability (TRACE paper, step 2): coverage `Cov = LACKING∧failed / #failed` and the
 * contrastive gap `Δ = ER− − ER+` with `ER± = LACKING / (LACKING + PRESENT)` over passed (+) or failed (−) tasks.
 * A zero denominator gives 0, as in the reference code.
 */
import type { CapabilityLabelLists, RunFile } from "./run-file.js";

export interface CapabilityRunMetrics {
  cov: number;
  delta: number;
  erMinus: number;
  erPlus: number;
  lackingFailed: readonly string[];
}

function ratio(numerator: number, denominator: number): number {
  return denominator > 0 ? numerator / denominator : 0;
}

/** Cov, ER−, ER+ and Δ of one capability in one run. */
function capabilityRunMetrics(lists: CapabilityLabelLists, totalFailed: number): CapabilityRunMetrics {
  const lackingFailed = lists.lacking_failed.length;
  const presentFailed = lists.present_failed.length;
  const lackingPassed = lists.lacking_passed.length;
  const presentPassed = lists.present_passed.length;
  const erMinus = ratio(lackingFailed, lackingFailed + presentFailed);
  const erPlus = ratio(lackingPassed, lackingPassed + presentPassed);
  return { cov: ratio(lackingFailed, totalFailed), delta: erMinus - erPlus, erMinus, erPlus, lackingFailed: lists.lacking_failed };
}

/** The metrics of every capability labeled in a run. */
export function runMetrics(run: RunFile): Map<string, CapabilityRunMetrics> {
  return new Map(Object.entries(run.labels).map(([capability, lists]) => [capability, capabilityRunMetrics(lists, run.totals.total_failed)]));
}
