/** Parsing of numeric command-line values (integers, and numbers within a range), shared by every command. */
import { UsageError } from "./usage-error.js";

/** A command-line integer ≥ minimum, or a UsageError naming the option. */
export function integerOption(name: string, text: string, minimum: number): number {
  const value = Number(text);
  if (!/^\s*-?\d+\s*$/.test(text) || !Number.isSafeInteger(value) || value < minimum) {
    throw new UsageError(`${name} must be an integer ≥ ${minimum}, got ${JSON.stringify(text)}`);
  }
  return value;
}

/** A command-line number within [minimum, maximum] (maximum optional), or a UsageError naming the option and the value. */
export function numberOption(name: string, text: string, range: { minimum: number; maximum?: number }): number {
  const value = Number(text);
  const { minimum, maximum } = range;
  if (text.trim() === "" || !Number.isFinite(value) || value < minimum || (maximum !== undefined && value > maximum)) {
    const expected = maximum === undefined ? `a number ≥ ${minimum}` : `a number in [${minimum}, ${maximum}]`;
    throw new UsageError(`${name} must be ${expected}, got ${JSON.stringify(text)}`);
  }
  return value;
}
