import { TraceError } from "../../spec/trace-error.js";

/** An evaluator that returned a different number of outcomes than the instances it was given. */
export class EvaluatorOutputError extends TraceError {
  override readonly name = "EvaluatorOutputError";
  constructor(
    readonly expected: number,
    readonly received: number,
  ) {
    super(`GEPA evaluator returned ${received} outcomes for ${expected} instances`, { category: "internal" });
  }
}
