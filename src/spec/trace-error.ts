/**
 * The base of every error class of the project (in the lowest layer, so any layer may extend it). An instance carries
 * a marker under `Symbol.for("trace.error")`, so `TraceError.isInstance` recognizes project errors across duplicated
 * copies of this module (where `instanceof` would not), and a `category` saying whose problem it is. The CLI prints
 * a `TraceError` as one line (`trace: <message>`) and anything else with its stack.
 */

const marker = Symbol.for("trace.error");

/**
 * Whose problem an error is: `usage` bad command-line or configuration input; `data` a file, artifact or input value
 * malformed or missing; `endpoint` an OpenAI-compatible endpoint failed or answered unusably; `worker` the Python
 * worker failed or refused; `sandbox` a generated module misbehaved in the sandbox; `target` a user's own target
 * (module or MCP server) failed; `internal` a bug or broken invariant.
 */
export type TraceErrorCategory = "usage" | "data" | "endpoint" | "worker" | "sandbox" | "target" | "internal";

export interface TraceErrorOptions {
  category: TraceErrorCategory;
  /** The underlying error; left unset (no `cause` property) when undefined. */
  cause?: unknown;
}

/** The base class of the project's errors; subclasses set their own `name` and carry the offending values as fields. */
export abstract class TraceError extends Error {
  private readonly [marker] = true;
  readonly category: TraceErrorCategory;

  constructor(message: string, options: TraceErrorOptions) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.category = options.category;
  }

  /** Whether `value` is an error of the project (checks the marker, not the prototype chain). */
  static isInstance(value: unknown): value is TraceError {
    return typeof value === "object" && value !== null && (value as { [marker]?: unknown })[marker] === true;
  }
}
