import { TraceError } from "../spec/trace-error.js";

/** A run directory `trace serve` cannot serve: missing, not a run, not routed yet, or without trained adapters. */
export class RunNotServableError extends TraceError {
  override readonly name = "RunNotServableError";
  constructor(
    /** The run directory as given. */
    readonly runDirectory: string,
    /** The file or directory that is missing. */
    readonly missing: string,
    /** Why the run cannot be served, and what to do. */
    readonly reason: string,
  ) {
    super(`${runDirectory}: ${reason}`, { category: "usage" });
  }

  static override isInstance(value: unknown): value is RunNotServableError {
    return value instanceof Error && value.name === "RunNotServableError";
  }
}
