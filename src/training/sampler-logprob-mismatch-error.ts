import { TraceError } from "../spec/trace-error.js";

/** The sampler and the trainer disagree on the probe's logprobs beyond the tolerance: the sync is broken. */
export class SamplerLogprobMismatchError extends TraceError {
  override readonly name = "SamplerLogprobMismatchError";
  constructor(
    readonly model: string,
    readonly maxDifference: number,
    /** The tolerance at that token (absolute plus relative times |logprob|). */
    readonly tolerance: number,
    /** The trainer's logprob of the token that differs most beyond its tolerance. */
    readonly logprob = Number.NaN,
    /** How many of the probe's tokens lie beyond their tolerance, of how many. */
    readonly count?: { beyond: number; tokens: number },
    /** Probe sets that failed one after another (the figures are the last one's). */
    readonly sets = 1,
  ) {
    super(
      `sampler model ${JSON.stringify(model)} and the trainer disagree on the probe's logprobs: ${count === undefined ? "" : `${count.beyond} of ${count.tokens} tokens beyond their tolerance; the furthest `}|difference| ${maxDifference.toExponential(3)} > tolerance ${Number(tolerance.toPrecision(3))}${Number.isNaN(logprob) ? "" : ` at a token of logprob ${logprob.toFixed(3)}`}${sets > 1 ? ` (in each of ${sets} probe sets on fresh seeds)` : ""}`,
      { category: "worker" },
    );
  }
}
