/** Parsing of integer command-line values, shared by every command. */
import { UsageError } from "./usage-error.js";

/** A command-line integer ≥ minimum, or a UsageError naming the option. */
export function integerOption(name: string, text: string, minimum: number): number {
  const value = Number(text);
  if (!/^\s*-?\d+\s*$/.test(text) || !Number.isSafeInteger(value) || value < minimum) {
    throw new UsageError(`${name} must be an integer ≥ ${minimum}, got ${JSON.stringify(text)}`);
  }
  return value;
}
