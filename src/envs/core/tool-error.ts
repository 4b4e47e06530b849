import { TraceError } from "../../spec/trace-error.js";

/** The error a tool raises to refuse a call (τ²-bench's `ValueError`); it becomes an `Error: …` observation. */
export class ToolError extends TraceError {
  override readonly name = "ToolError";
  readonly toolName: string | undefined;

  constructor(message: string, options: { toolName?: string; cause?: unknown } = {}) {
    super(message, { category: "data", cause: options.cause });
    this.toolName = options.toolName;
  }

  static override isInstance(value: unknown): value is ToolError {
    return value instanceof Error && value.name === "ToolError";
  }
}
