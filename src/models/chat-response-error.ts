import { TraceError } from "../spec/trace-error.js";

/** A 2xx chat-completions response that is not the expected shape; names every problem and keeps the body. */
export class ChatResponseError extends TraceError {
  override readonly name = "ChatResponseError";

  constructor(
    readonly url: string,
    readonly problems: readonly string[],
    readonly body: string,
    options: { cause?: unknown } = {},
  ) {
    super(`POST ${url} returned a malformed response: ${problems.join("; ")}`, { category: "endpoint", cause: options.cause });
  }

  static override isInstance(value: unknown): value is ChatResponseError {
    return value instanceof Error && value.name === "ChatResponseError";
  }
}
