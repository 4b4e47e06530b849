/**
 * How many GRPO iterations each capability adapter gets (`training.allocation`): `iterations` each, or the same total
 * shared in proportion to each capability's Cov in the analysis.
 */
import type { PipelineContext } from "./pipeline-context.js";

/**
 * Shares `total` iterations among capabilities in proportion to `weights` (largest remainders, ties to the earlier
 * capability; equal shares when every weight is 0), then gives a capability left at none one iteration from the
 * largest share. The result sums to `total`.
 */
export function shareIterations(total: number, weights: readonly number[]): number[] {
  if (weights.length === 0) return [];
  if (!Number.isInteger(total) || total < weights.length) throw new RangeError(`${total} iterations cannot give each of ${weights.length} capabilities one`);
  if (weights.some((weight) => !Number.isFinite(weight) || weight < 0)) throw new RangeError(`capability weights must be finite and non-negative: ${weights.join(", ")}`);
  const sum = weights.reduce((all, weight) => all + weight, 0);
  const exact = weights.map((weight) => (sum === 0 ? total / weights.length : (total * weight) / sum));
  const counts = exact.map((value) => Math.floor(value));
  const left = total - counts.reduce((all, count) => all + count, 0);
  const order = exact.map((value, index) => ({ index, remainder: value - Math.floor(value) })).sort((a, b) => b.remainder - a.remainder || a.index - b.index);
  for (const { index } of order.slice(0, left)) counts[index] = (counts[index] ?? 0) + 1;
  // At least one each: an iteration from the largest share for every capability left at none.
  for (const [index, count] of counts.entries()) {
    if (count > 0) continue;
    const largest = counts.indexOf(Math.max(...counts));
    counts[largest] = (counts[largest] ?? 0) - 1;
    counts[index] = 1;
  }
  return counts;
}

/**
 * Each capability environment's iterations under the run's `training.allocation`: `training.iterations` each
 * ("equal"), or capabilities × `training.iterations` shared by the analysis's mean Cov ("coverage"; a capability the
 * analysis does not list weighs 0).
 */
export function capabilityIterations(context: PipelineContext, capabilities: readonly string[]): Map<string, number> {
  const { training, analysis } = context.config;
  if (training.allocation === "equal") return new Map(capabilities.map((capability) => [capability, training.iterations]));
  const coverage = new Map(context.run.readSelectedCapabilities(analysis.labeler).map((row) => [row.skill, row.mean_cov]));
  const counts = shareIterations(capabilities.length * training.iterations, capabilities.map((capability) => coverage.get(capability) ?? 0));
  return new Map(capabilities.map((capability, index) => [capability, counts[index] ?? training.iterations]));
}
