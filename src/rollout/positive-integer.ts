/** Checks an option that counts something (iterations, trials, batch size): a positive integer, else a RangeError naming it. */
export function positiveInteger(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer, got ${value}`);
  return value;
}
