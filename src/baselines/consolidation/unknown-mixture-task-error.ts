import { TraceError } from "../../spec/trace-error.js";

/** A task id that names no member of a mixture environment (ids are `<member>/<member task id>`). */
export class UnknownMixtureTaskError extends TraceError {
  override readonly name = "UnknownMixtureTaskError";
  constructor(
    readonly taskId: string,
    readonly environment: string,
  ) {
    super(`${environment} has no task ${JSON.stringify(taskId)} (task ids are <member>/<task id> of its members)`, { category: "usage" });
  }
}
