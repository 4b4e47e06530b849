import { TraceError } from "../spec/trace-error.js";

/** Errors of the trajectory store; like `DataFileError`, each names the store file and every problem found. */
export class TrajectoryStoreError extends TraceError {
  override readonly name: string = "TrajectoryStoreError";

  constructor(
    readonly file: string,
    readonly problems: readonly string[],
    options: { cause?: unknown } = {},
  ) {
    super(`${file}: ${problems.join("; ")}`, { category: "data", cause: options.cause });
  }

  static override isInstance(value: unknown): value is TrajectoryStoreError {
    return value instanceof Error && (value.name === "TrajectoryStoreError" || value.name === "StoreVersionError");
  }
}

/** The store was written by a newer version of this code: its schema version is above the newest one known here. */
export class StoreVersionError extends TrajectoryStoreError {
  override readonly name: string = "StoreVersionError";

  constructor(
    file: string,
    readonly found: number,
    readonly supported: number,
  ) {
    super(file, [`store schema version ${found} is newer than the newest version this code knows (${supported}); upgrade trace-agent to open it`]);
  }

  static override isInstance(value: unknown): value is StoreVersionError {
    return value instanceof Error && value.name === "StoreVersionError";
  }
}
