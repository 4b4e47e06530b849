import { TraceError } from "../spec/trace-error.js";

/** An environment the reference labeler cannot label: it needs τ² tasks with gold annotations. */
export class UnsupportedEnvironmentError extends TraceError {
  override readonly name = "UnsupportedEnvironmentError";
  constructor(readonly environment: string) {
    super(`the reference labeler needs τ²-bench tasks with gold annotations; environment ${JSON.stringify(environment)} is not tau2-airline or tau2-retail`, { category: "usage" });
  }
}
