import { TraceError } from "../../spec/trace-error.js";

/** A data file (tasks, database, results) that is missing or malformed; names the file and every problem. */
export class DataFileError extends TraceError {
  override readonly name = "DataFileError";

  constructor(
    readonly file: string,
    readonly problems: readonly string[],
    options: { cause?: unknown } = {},
  ) {
    super(`${file}: ${problems.join("; ")}`, { category: "data", cause: options.cause });
  }

  static override isInstance(value: unknown): value is DataFileError {
    return value instanceof Error && value.name === "DataFileError";
  }
}
