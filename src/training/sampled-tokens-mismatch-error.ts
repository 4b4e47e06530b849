/** An assistant turn whose sampled tokens are inconsistent (logprobs not one per completion token, or no prompt). */
import type { SampledTokens } from "../spec/message.js";
import { TraceError } from "../spec/trace-error.js";

export class SampledTokensMismatchError extends TraceError {
  override readonly name = "SampledTokensMismatchError";
  constructor(
    readonly tokens: SampledTokens,
    reason: string,
  ) {
    super(`sampled tokens of an assistant turn: ${reason}`, { category: "endpoint" });
  }
}
