/** Mean, sample standard deviation and range of a list of numbers, and the t interval of a mean. */
import tQuantile from "@stdlib/stats-base-dists-t-quantile";
import { linearRegression, sampleCorrelation } from "simple-statistics";

/** Summary of values over seeds; `standardDeviation` is the sample one (n − 1), 0 for a single value. */
export interface Summary {
  count: number;
  mean: number;
  standardDeviation: number;
  minimum: number;
  maximum: number;
}

/** Summarizes a non-empty list of numbers. */
export function summarize(values: readonly number[]): Summary {
  const count = values.length;
  if (count === 0) throw new RangeError("cannot summarize an empty list of values");
  const mean = values.reduce((sum, value) => sum + value, 0) / count;
  const squares = values.reduce((sum, value) => sum + (value - mean) ** 2, 0);
  return {
    count,
    mean,
    standardDeviation: count > 1 ? Math.sqrt(squares / (count - 1)) : 0,
    minimum: Math.min(...values),
    maximum: Math.max(...values),
  };
}

/** A two-sided confidence interval for a mean. */
export interface MeanInterval {
  low: number;
  high: number;
}

/**
 * The Student-t interval for the mean of a summary's values (two-sided, `level` 0.95 by default); null for fewer than
 * two values, where no spread is measured. The t quantile comes from stdlib's distribution functions.
 */
export function meanInterval(summary: Summary, level = 0.95): MeanInterval | null {
  if (summary.count < 2) return null;
  const half = tQuantile(1 - (1 - level) / 2, summary.count - 1) * (summary.standardDeviation / Math.sqrt(summary.count));
  return { low: summary.mean - half, high: summary.mean + half };
}

/** A least-squares line y = intercept + slope × x over paired values, with the correlation and the residual spread. */
export interface LineFit {
  count: number;
  intercept: number;
  slope: number;
  /** Pearson's r of x and y. */
  correlation: number;
  /** The residuals' standard deviation with n − 2 degrees of freedom (two parameters fitted). */
  residualStandardDeviation: number;
}

/** Fits y on x by least squares (simple-statistics); needs three or more points and x that is not constant. */
export function fitLine(points: readonly (readonly [x: number, y: number])[]): LineFit {
  if (points.length < 3) throw new RangeError(`a line fitted to ${points.length} points has no residual spread to report (3 or more needed)`);
  const xs = points.map(([x]) => x);
  if (Math.min(...xs) === Math.max(...xs)) throw new RangeError(`cannot fit a line: every x is ${xs[0]}`);
  const { m: slope, b: intercept } = linearRegression(points.map(([x, y]) => [x, y]));
  const squares = points.reduce((sum, [x, y]) => sum + (y - intercept - slope * x) ** 2, 0);
  const ys = points.map(([, y]) => y);
  return {
    count: points.length,
    intercept,
    slope,
    correlation: Math.min(...ys) === Math.max(...ys) ? 0 : sampleCorrelation(xs, ys),
    residualStandardDeviation: Math.sqrt(squares / (points.length - 2)),
  };
}
