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

/** A `startWorker` option out of range (e.g. `gpus: 0`); carries the option's name and value. */
export class WorkerOptionError extends TraceError {
  override readonly name = "WorkerOptionError";

  constructor(
    readonly option: string,
    readonly value: unknown,
    expected: string,
  ) {
    super(`worker option ${option} must be ${expected}, got ${JSON.stringify(value)}`, { category: "usage" });
  }

  static override isInstance(value: unknown): value is WorkerOptionError {
    return value instanceof Error && value.name === "WorkerOptionError";
  }
}
