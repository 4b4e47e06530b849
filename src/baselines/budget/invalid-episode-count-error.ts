import { TraceError } from "../../spec/trace-error.js";

/** An episode count (or budget limit) that is not a non-negative integer. */
export class InvalidEpisodeCountError extends TraceError {
  override readonly name = "InvalidEpisodeCountError";
  constructor(
    readonly what: string,
    readonly value: number,
  ) {
    super(`${what} must be a non-negative integer, got ${value}`, { category: "usage" });
  }
}
