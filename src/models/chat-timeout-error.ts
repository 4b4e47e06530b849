import { TraceError } from "../spec/trace-error.js";

/** A chat-completions request that ran past its per-attempt timeout on every attempt. */
export class ChatTimeoutError extends TraceError {
  override readonly name = "ChatTimeoutError";

  constructor(
    readonly url: string,
    readonly timeoutMs: number,
    readonly attempts: number,
    readonly model: string,
    options: { cause?: unknown } = {},
  ) {
    super(`POST ${url} timed out after ${timeoutMs} ms (${attempts} attempt${attempts === 1 ? "" : "s"})`, { category: "endpoint", cause: options.cause });
  }

  static override isInstance(value: unknown): value is ChatTimeoutError {
    return value instanceof Error && value.name === "ChatTimeoutError";
  }
}
