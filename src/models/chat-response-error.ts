/** A 2xx chat-completions response that is not the expected shape; names every problem and keeps the body. */
export class ChatResponseError extends Error {
  override readonly name = "ChatResponseError";

  constructor(
    readonly url: string,
    readonly problems: readonly string[],
    readonly body: string,
    options: { cause?: unknown } = {},
  ) {
    super(`POST ${url} returned a malformed response: ${problems.join("; ")}`, options.cause === undefined ? undefined : { cause: options.cause });
  }

  static isInstance(value: unknown): value is ChatResponseError {
    return value instanceof Error && value.name === "ChatResponseError";
  }
}
