/** A data file (tasks, database, results) that is missing or malformed; names the file and every problem. */
export class DataFileError extends Error {
  override readonly name = "DataFileError";

  constructor(
    readonly file: string,
    readonly problems: readonly string[],
    options: { cause?: unknown } = {},
  ) {
    super(`${file}: ${problems.join("; ")}`, options.cause === undefined ? undefined : { cause: options.cause });
  }

  static isInstance(value: unknown): value is DataFileError {
    return value instanceof Error && value.name === "DataFileError";
  }
}
