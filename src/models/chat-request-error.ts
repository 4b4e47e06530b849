import { TraceError } from "../spec/trace-error.js";

/** A chat-completions request the server refused (a 4xx, or a 429/5xx left after every retry); carries its status and body. */
export class ChatRequestError extends TraceError {
  override readonly name = "ChatRequestError";

  constructor(
    readonly url: string,
    readonly status: number,
    readonly body: string,
    readonly model: string,
    options: { cause?: unknown } = {},
  ) {
    super(`POST ${url} → ${status}: ${body.trim() || "(empty body)"}`, { category: "endpoint", cause: options.cause });
  }

  static override isInstance(value: unknown): value is ChatRequestError {
    return value instanceof Error && value.name === "ChatRequestError";
  }
}
