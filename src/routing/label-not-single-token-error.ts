import { TraceError } from "../spec/trace-error.js";

/** A routing label that the sampler's tokenizer does not encode as exactly one token. */
export class LabelNotSingleTokenError extends TraceError {
  override readonly name = "LabelNotSingleTokenError";
  constructor(
    readonly label: string,
    readonly tokens: readonly number[],
  ) {
    super(`routing label ${JSON.stringify(label)} is ${tokens.length} tokens (${JSON.stringify(tokens)}) with the sampler's tokenizer; every label must be exactly one token`, { category: "usage" });
  }
}
