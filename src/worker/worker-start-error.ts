import { TraceError } from "../spec/trace-error.js";

/** The worker did not become healthy: its process ended first, or `/health` never answered in time. Carries its stderr tail. */
export class WorkerStartError extends TraceError {
  override readonly name = "WorkerStartError";

  constructor(
    readonly reason: "exited" | "timeout",
    /** The command line that was run. */
    readonly command: readonly string[],
    readonly exitCode: number | null,
    readonly signal: NodeJS.Signals | null,
    /** The last lines the worker wrote to stderr. */
    readonly stderrTail: string,
    options: { cause?: unknown; timeoutMs?: number } = {},
  ) {
    const what =
      reason === "timeout"
        ? `did not answer GET /health within ${options.timeoutMs ?? "?"} ms`
        : `exited before it was ready (${signal === null ? `exit code ${exitCode}` : `signal ${signal}`})`;
    const tail = stderrTail.trim() === "" ? " (no stderr output)" : `; its stderr ends:\n${stderrTail.trimEnd()}`;
    super(`the worker (${command.join(" ")}) ${what}${tail}`, { category: "worker", cause: options.cause });
  }

  static override isInstance(value: unknown): value is WorkerStartError {
    return value instanceof Error && value.name === "WorkerStartError";
  }
}
