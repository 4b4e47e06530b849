import { TraceError } from "../../spec/trace-error.js";

/** A scenario name the ToolSandbox export does not have. */
export class UnknownScenarioError extends TraceError {
  override readonly name = "UnknownScenarioError";
  constructor(
    readonly scenario: string,
    readonly source: string,
  ) {
    super(`${source}: ToolSandbox has no scenario ${JSON.stringify(scenario)}`, { category: "data" });
  }
}
