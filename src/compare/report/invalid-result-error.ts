import { TraceError } from "../../spec/trace-error.js";

/** A result cannot be summarized (duplicate seed, impossible episode counts, empty curve); carries the method, seed and reason. */
export class InvalidResultError extends TraceError {
  override readonly name = "InvalidResultError";
  constructor(
    readonly method: string,
    readonly seed: number,
    readonly reason: string,
  ) {
    super(`result of method "${method}" seed ${seed}: ${reason}`, { category: "data" });
  }
}
