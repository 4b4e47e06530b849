import { TraceError } from "../../spec/trace-error.js";

/** The comparison report was asked for with no results; carries what it was given. */
export class EmptyResultsError extends TraceError {
  override readonly name = "EmptyResultsError";
  constructor(readonly results: readonly unknown[]) {
    super("cannot write a comparison report without results", { category: "data" });
  }
}
