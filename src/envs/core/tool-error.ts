/** The error a tool raises to refuse a call (τ²-bench's `ValueError`); it becomes an `Error: …` observation. */
export class ToolError extends Error {
  override readonly name = "ToolError";
  readonly toolName: string | undefined;

  constructor(message: string, options: { toolName?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.toolName = options.toolName;
  }

  static isInstance(value: unknown): value is ToolError {
    return value instanceof Error && value.name === "ToolError";
  }
}
