import { TraceError } from "../spec/trace-error.js";

/** A worker request that failed below HTTP: refused connection (no worker listening), reset socket. */
export class WorkerConnectionError extends TraceError {
  override readonly name = "WorkerConnectionError";

  constructor(
    readonly method: string,
    readonly url: string,
    options: { cause?: unknown } = {},
  ) {
    super(`${method} ${url} failed: ${describeCause(options.cause)}`, { category: "worker", cause: options.cause });
  }

  static override isInstance(value: unknown): value is WorkerConnectionError {
    return value instanceof Error && value.name === "WorkerConnectionError";
  }
}

/** fetch's own message is "fetch failed"; the useful part (ECONNREFUSED …) is its cause. */
function describeCause(cause: unknown): string {
  if (!(cause instanceof Error)) return String(cause);
  const inner = cause.cause;
  return inner instanceof Error ? `${cause.message} (${inner.message})` : cause.message;
}
