import { TraceError } from "../../spec/trace-error.js";

/** A scripted-expert deficit rate that is not a probability. */
export class ExpertDeficitRateError extends TraceError {
  override readonly name = "ExpertDeficitRateError";
  constructor(
    readonly deficit: string,
    readonly rate: unknown,
  ) {
    super(`expert deficit ${deficit} must be a rate in [0, 1], got ${JSON.stringify(rate)}`, { category: "usage" });
  }
}
