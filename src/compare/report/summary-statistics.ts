/** Mean, sample standard deviation and range of a list of numbers. */

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
