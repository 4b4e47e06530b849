import { TraceError } from "../spec/trace-error.js";

/** Episodes of a rollout that failed with errors (an endpoint failure, the environment, grading): not graded; rerunning redoes them. */
export class EpisodesFailedError extends TraceError {
  override readonly name = "EpisodesFailedError";
  constructor(
    readonly environment: string,
    readonly failed: number,
    readonly example: string | undefined,
  ) {
    super(`${failed} episode${failed === 1 ? "" : "s"} of ${environment} failed with errors${example === undefined ? "" : ` (e.g. ${example})`}; they are not graded — \`trace show\` lists them, and rerunning the same command redoes them`, { category: "endpoint" });
  }
}
