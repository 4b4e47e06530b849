import { TraceError } from "../../spec/trace-error.js";

/** A score table with no candidates or no validation instances: there is no Pareto front to select from. */
export class EmptyScoreTableError extends TraceError {
  override readonly name = "EmptyScoreTableError";
  constructor(readonly scores: readonly (readonly number[])[]) {
    super(`GEPA needs at least one candidate scored on at least one validation instance, got ${JSON.stringify(scores)}`, { category: "data" });
  }
}
