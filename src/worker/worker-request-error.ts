import { TraceError } from "../spec/trace-error.js";

/** A worker request answered with a non-2xx status; carries the status and the worker's `error.message`, `type` and `param`. */
export class WorkerRequestError extends TraceError {
  override readonly name = "WorkerRequestError";
  /** The worker's own message (`error.message`), or the body text when it sent no JSON error. */
  readonly workerMessage: string;
  /** `invalid_request_error`, `not_found_error`, `conflict_error`, `authentication_error`, …; null when absent. */
  readonly type: string | null;
  /** The offending request field as the worker names it (`datums[3].target_tokens`); null when absent. */
  readonly param: string | null;

  constructor(
    readonly method: string,
    readonly url: string,
    readonly status: number,
    readonly body: string,
  ) {
    const parsed = parseWorkerError(body);
    const where = parsed.param === null ? "" : ` (${parsed.param})`;
    super(`${method} ${url} → ${status}: ${parsed.message}${where}`, { category: "worker" });
    this.workerMessage = parsed.message;
    this.type = parsed.type;
    this.param = parsed.param;
  }

  static override isInstance(value: unknown): value is WorkerRequestError {
    return value instanceof Error && value.name === "WorkerRequestError";
  }
}

/** Reads `{"error": {"message", "type", "param"}}`; any other body is its own message. */
function parseWorkerError(body: string): { message: string; type: string | null; param: string | null } {
  const fallback = { message: body.trim() || "(empty body)", type: null, param: null };
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return fallback;
  }
  if (typeof value !== "object" || value === null) return fallback;
  const error = (value as { error?: unknown }).error;
  if (typeof error !== "object" || error === null) return fallback;
  const { message, type, param } = error as { message?: unknown; type?: unknown; param?: unknown };
  return {
    message: typeof message === "string" ? message : fallback.message,
    type: typeof type === "string" ? type : null,
    param: typeof param === "string" ? param : null,
  };
}
