import { TraceError } from "../spec/trace-error.js";

/** A run directory's artifact that is missing, not JSON, or not of its schema; names the file and every offending path. */
export class RunArtifactError extends TraceError {
  override readonly name = "RunArtifactError";
  constructor(
    /** The artifact's file. */
    readonly file: string,
    /** Each problem, as `path: message` (`decisions[0].label: Invalid input: expected string, received number`). */
    readonly problems: readonly string[],
    options: { cause?: unknown } = {},
  ) {
    super(`${file}: ${problems.join("; ")}`, { category: "data", cause: options.cause });
  }

  static override isInstance(value: unknown): value is RunArtifactError {
    return value instanceof Error && value.name === "RunArtifactError";
  }
}
