import { TraceError } from "../spec/trace-error.js";

/** A chat-completions request that failed below HTTP (refused connection, reset socket) on every attempt. */
export class ChatConnectionError extends TraceError {
  override readonly name = "ChatConnectionError";

  constructor(
    readonly url: string,
    readonly attempts: number,
    readonly model: string,
    options: { cause?: unknown } = {},
  ) {
    const reason = options.cause instanceof Error ? options.cause.message : String(options.cause);
    super(`POST ${url} failed after ${attempts} attempt${attempts === 1 ? "" : "s"}: ${reason}`, { category: "endpoint", cause: options.cause });
  }

  static override isInstance(value: unknown): value is ChatConnectionError {
    return value instanceof Error && value.name === "ChatConnectionError";
  }
}
