/** A worker request that ran past its timeout (the worker may still be working on it). */
export class WorkerTimeoutError extends Error {
  override readonly name = "WorkerTimeoutError";

  constructor(
    readonly method: string,
    readonly url: string,
    readonly timeoutMs: number,
    options: { cause?: unknown } = {},
  ) {
    super(`${method} ${url} timed out after ${timeoutMs} ms`, options.cause === undefined ? undefined : { cause: options.cause });
  }

  static isInstance(value: unknown): value is WorkerTimeoutError {
    return value instanceof Error && value.name === "WorkerTimeoutError";
  }
}
