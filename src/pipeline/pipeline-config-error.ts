import { TraceError } from "../spec/trace-error.js";

/** A `trace run` configuration file that is missing, not JSON, or fails validation; `issues` name each offending field. */
export class PipelineConfigError extends TraceError {
  override readonly name = "PipelineConfigError";
  constructor(
    readonly file: string,
    readonly issues: readonly string[],
  ) {
    super(`${file}: ${issues.join("; ")}`, { category: "usage" });
  }
}
