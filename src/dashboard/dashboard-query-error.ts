import { TraceError } from "../spec/trace-error.js";

/** A dashboard request that names no such run, view or episode, or has a malformed query value. */
export class DashboardQueryError extends TraceError {
  override readonly name = "DashboardQueryError";
  constructor(
    message: string,
    readonly query: unknown,
  ) {
    super(message, { category: "usage" });
  }
}
