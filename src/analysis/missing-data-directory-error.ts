import { TraceError } from "../spec/trace-error.js";

/** The τ² data (tasks with gold annotations) of an environment could not be located. */
export class MissingDataDirectoryError extends TraceError {
  override readonly name = "MissingDataDirectoryError";
  constructor(
    readonly environment: string,
    readonly searched: readonly string[],
  ) {
    super(
      searched.length === 0
        ? `no τ² data directory for ${environment}: pass --data-dir (τ²-bench's data/tau2 directory, or the domain's directory)`
        : `no tasks.json for ${environment} in ${searched.join(" or ")}`,
      { category: "usage" },
    );
  }
}
