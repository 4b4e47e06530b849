import { TraceError } from "../spec/trace-error.js";

/** `runGrpo`'s `mechanisms` option does not fit `grpoMechanismsSchema`. */
export class GrpoMechanismsError extends TraceError {
  override readonly name = "GrpoMechanismsError";
  constructor(
    readonly value: unknown,
    readonly problems: readonly string[],
  ) {
    super(`GRPO mechanisms: ${problems.join("; ")}`, { category: "usage" });
  }
}
