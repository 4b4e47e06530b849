import { TraceError } from "../../spec/trace-error.js";

/** A reflection that proposed nothing: a reply with no proposed text in it, or (with `reason`) no reply at all. */
export class ReflectionReplyError extends TraceError {
  override readonly name = "ReflectionReplyError";
  constructor(
    readonly component: string,
    readonly reply: string | null,
    reason?: string,
  ) {
    super(`reflection for ${component}: ${reason ?? `no proposed text in the reply ${JSON.stringify(reply)}`}`, { category: "endpoint" });
  }
}
