import { TraceError } from "../spec/trace-error.js";

/** The sampler and the trainer disagree on the probe's logprobs beyond the tolerance: the sync is broken. */
export class SamplerLogprobMismatchError extends TraceError {
  override readonly name = "SamplerLogprobMismatchError";
  constructor(
    readonly model: string,
    readonly maxDifference: number,
    readonly tolerance: number,
  ) {
    super(`sampler model ${JSON.stringify(model)} and the trainer disagree on the probe's logprobs: max |difference| ${maxDifference.toExponential(3)} > tolerance ${tolerance}`, { category: "worker" });
  }
}
