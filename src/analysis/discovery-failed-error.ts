import { TraceError } from "../spec/trace-error.js";

/** Discovery gave no usable capability dictionary within its attempts; carries the last problems. */
export class DiscoveryFailedError extends TraceError {
  override readonly name = "DiscoveryFailedError";
  constructor(
    readonly problems: readonly string[],
    readonly attempts: number,
  ) {
    super(`capability discovery failed after ${attempts} attempts: ${problems.join("; ")}`, { category: "endpoint" });
  }
}
