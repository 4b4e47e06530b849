import { TraceError } from "../spec/trace-error.js";

/** A 2xx worker response that is not the shape the protocol promises; names every problem and keeps the body. */
export class WorkerResponseError extends TraceError {
  override readonly name = "WorkerResponseError";

  constructor(
    readonly method: string,
    readonly url: string,
    readonly problems: readonly string[],
    readonly body: string,
    options: { cause?: unknown } = {},
  ) {
    super(`${method} ${url} returned a malformed response: ${problems.join("; ")}`, { category: "worker", cause: options.cause });
  }

  static override isInstance(value: unknown): value is WorkerResponseError {
    return value instanceof Error && value.name === "WorkerResponseError";
  }
}
