import { TraceError } from "../spec/trace-error.js";

/** A routing completion that gives no logprob for any option's label (neither `logprob_token_ids` nor `top_logprobs`). */
export class MissingLabelLogprobsError extends TraceError {
  override readonly name = "MissingLabelLogprobsError";
  constructor(readonly labels: readonly string[]) {
    super(`the routing completion has no logprob for any label (${labels.join(", ")}): the server returned neither label logprobs nor top_logprobs naming them`, { category: "endpoint" });
  }
}
