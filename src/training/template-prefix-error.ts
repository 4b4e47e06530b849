import { TraceError } from "../spec/trace-error.js";

/** A chat template whose rendering of a conversation does not start with its rendering of an assistant turn's prompt. */
export class TemplatePrefixError extends TraceError {
  override readonly name = "TemplatePrefixError";
  constructor(
    readonly messageIndex: number,
    readonly prefixTokens: readonly number[],
  ) {
    super(`the full conversation's tokens do not extend the prompt of the assistant turn at message ${messageIndex} (${prefixTokens.length} tokens): the chat template re-renders earlier turns`, { category: "data" });
  }
}
