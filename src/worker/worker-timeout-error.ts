import { TraceError } from "../spec/trace-error.js";

/** A worker request that ran past its timeout (the worker may still be working on it). */
export class WorkerTimeoutError extends TraceError {
  override readonly name = "WorkerTimeoutError";

  constructor(
    readonly method: string,
    readonly url: string,
    readonly timeoutMs: number,
    options: { cause?: unknown } = {},
  ) {
    super(`${method} ${url} timed out after ${timeoutMs} ms`, { category: "worker", cause: options.cause });
  }

  static override isInstance(value: unknown): value is WorkerTimeoutError {
    return value instanceof Error && value.name === "WorkerTimeoutError";
  }
}
