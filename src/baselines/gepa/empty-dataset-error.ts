import { TraceError } from "../../spec/trace-error.js";

/** A GEPA training or validation set with no instances, or a seed candidate with no components. */
export class EmptyDatasetError extends TraceError {
  override readonly name = "EmptyDatasetError";
  constructor(readonly dataset: "training" | "validation" | "components") {
    super(`GEPA needs at least one ${dataset === "components" ? "component in the seed candidate" : `${dataset} instance`}`, { category: "data" });
  }
}
