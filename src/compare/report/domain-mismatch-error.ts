import { TraceError } from "../../spec/trace-error.js";

/** One result evaluated other domains than the first result did; carries the method, seed and both domain lists. */
export class DomainMismatchError extends TraceError {
  override readonly name = "DomainMismatchError";
  constructor(
    readonly method: string,
    readonly seed: number,
    readonly domains: readonly string[],
    readonly expectedDomains: readonly string[],
  ) {
    super(
      `result of method "${method}" seed ${seed} has domains [${domains.join(", ")}], expected [${expectedDomains.join(", ")}] like the first result`,
      { category: "data" },
    );
  }
}
