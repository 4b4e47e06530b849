/** Budget-vs-score curves of each method summarized over seeds, seeds aligned as step functions of episodes. */
import type { CurvePoint, MethodSeedResult } from "./comparison-types.js";
import { groupByMethod } from "./group-by-method.js";
import { summarize } from "./summary-statistics.js";
import { validateResults } from "./validate-results.js";

/** Scores of the seeds at one number of budgeted rollouts. */
export interface AlignedCurvePoint {
  episodes: number;
  mean: number;
  minimum: number;
  maximum: number;
  standardDeviation: number;
  /** Seeds with a score at this point (a seed joins at its first point). */
  seeds: number;
}

/** One method's curve over seeds. */
export interface MethodCurve {
  method: string;
  label: string;
  points: AlignedCurvePoint[];
}

function sortedByEpisodes(curve: readonly CurvePoint[]): CurvePoint[] {
  return [...curve].sort((left, right) => left.episodes - right.episodes);
}

/** Score of a seed's step function at `episodes`: its last point at or before it, undefined before its first. */
export function stepScore(sortedCurve: readonly CurvePoint[], episodes: number): number | undefined {
  let score: number | undefined;
  for (const point of sortedCurve) {
    if (point.episodes > episodes) break;
    score = point.score;
  }
  return score;
}

/**
 * Aligns each method's seeds at the union of their episode counts: a seed's score at x is that of its last point at
 * or before x, so seeds evaluated at different points are compared at the same budget. Methods in first-seen order.
 */
export function alignCurves(results: readonly MethodSeedResult[]): MethodCurve[] {
  validateResults(results);
  return groupByMethod(results).map((seeds) => {
    const curves = seeds.map((seed) => sortedByEpisodes(seed.curve));
    const episodes = [...new Set(curves.flatMap((curve) => curve.map((point) => point.episodes)))].sort((left, right) => left - right);
    const points = episodes.map((x): AlignedCurvePoint => {
      const scores = curves.map((curve) => stepScore(curve, x)).filter((score): score is number => score !== undefined);
      const summary = summarize(scores);
      return { episodes: x, mean: summary.mean, minimum: summary.minimum, maximum: summary.maximum, standardDeviation: summary.standardDeviation, seeds: summary.count };
    });
    return { method: seeds[0]!.method, label: seeds[0]!.label, points };
  });
}
