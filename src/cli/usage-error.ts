import { TraceError } from "../spec/trace-error.js";

/** A bad command-line value: printed as one line. */
export class UsageError extends TraceError {
  override readonly name = "UsageError";
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { category: "usage", cause: options.cause });
  }
}
