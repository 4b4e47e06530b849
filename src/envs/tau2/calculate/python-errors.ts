/** The errors raised while evaluating a `calculate` expression the way CPython's `eval` would. */
import { TraceError } from "../../../spec/trace-error.js";

/** A CPython `SyntaxError`; `str()` of it appends the location: `invalid syntax (<string>, line 1)`. */
export class PythonSyntaxError extends TraceError {
  override readonly name = "PythonSyntaxError";

  constructor(
    readonly reason: string,
    readonly line = 1,
  ) {
    super(`${reason} (<string>, line ${line})`, { category: "data" });
  }
}

/** A CPython runtime exception (`ZeroDivisionError`, `TypeError`, …); the message is `str(exception)`. */
export class PythonRuntimeError extends TraceError {
  override readonly name = "PythonRuntimeError";

  constructor(
    readonly pythonType:
      | "ZeroDivisionError"
      | "TypeError"
      | "OverflowError"
      | "ValueError"
      | "MemoryError"
      | "RecursionError",
    message: string,
  ) {
    super(message, { category: "data" });
  }
}
