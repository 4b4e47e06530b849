import { TraceError } from "../spec/trace-error.js";

/** A `/tokenize` request that failed or gave an answer without a token list. */
export class TokenizeRequestError extends TraceError {
  override readonly name = "TokenizeRequestError";
  constructor(
    readonly url: string,
    readonly detail: string,
    options?: { cause?: unknown },
  ) {
    super(`POST ${url}: ${detail}`, { category: "endpoint", cause: options?.cause });
  }
}
