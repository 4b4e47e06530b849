import { TraceError } from "../../spec/trace-error.js";

/** A reflection model reply with no proposed text in it. */
export class ReflectionReplyError extends TraceError {
  override readonly name = "ReflectionReplyError";
  constructor(
    readonly component: string,
    readonly reply: string | null,
  ) {
    super(`reflection for ${component}: no proposed text in the reply ${JSON.stringify(reply)}`, { category: "endpoint" });
  }
}
