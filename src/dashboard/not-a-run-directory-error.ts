import { TraceError } from "../spec/trace-error.js";

/** A path given to `trace dashboard` that is no run directory (missing, a file, or without config.json, stages/ and store.sqlite). */
export class NotARunDirectoryError extends TraceError {
  override readonly name = "NotARunDirectoryError";
  constructor(
    readonly runDirectory: string,
    readonly reason: string,
  ) {
    super(`${runDirectory} is not a run directory: ${reason}`, { category: "data" });
  }
}
