/**
 * Picks the option whose label has the highest logprob at the first generated position. Label logprobs come from
 * `logprob_token_ids` (`labelLogprobs`) when the server gave them, else from that position's `top_logprobs` (matched by
 * token id when the server names ids, else by the token's text). Ties go to the option listed first.
 */
import type { ChatCompletion } from "../models/chat-types.js";
import { MissingLabelLogprobsError } from "./missing-label-logprobs-error.js";
import type { RoutingDecision, RoutingOption } from "./routing-option.js";

/** The label logprobs a completion carries, per option (null where it names none). */
function optionLogprobs(options: readonly RoutingOption[], tokenIds: readonly number[], completion: Pick<ChatCompletion, "labelLogprobs" | "topLogprobs">): { values: (number | null)[]; source: RoutingDecision["source"] } {
  const labelLogprobs = completion.labelLogprobs;
  if (labelLogprobs !== undefined && tokenIds.some((id) => Number.isFinite(labelLogprobs[id]))) {
    return { values: tokenIds.map((id) => (Number.isFinite(labelLogprobs[id]) ? labelLogprobs[id]! : null)), source: "label_logprobs" };
  }
  const first = completion.topLogprobs?.[0] ?? [];
  const values = options.map((option, index) => {
    const match = first.find((candidate) => (candidate.tokenId === undefined ? candidate.token === option.label : candidate.tokenId === tokenIds[index]));
    return match !== undefined && Number.isFinite(match.logprob) ? match.logprob : null;
  });
  return { values, source: "top_logprobs" };
}

/** The decision for a completion of the routing prompt; `tokenIds[i]` is option i's label token. */
export function selectRoute(options: readonly RoutingOption[], tokenIds: readonly number[], completion: Pick<ChatCompletion, "labelLogprobs" | "topLogprobs">): RoutingDecision {
  const { values, source } = optionLogprobs(options, tokenIds, completion);
  let best = -1;
  values.forEach((value, index) => {
    if (value !== null && (best < 0 || value > values[best]!)) best = index;
  });
  if (best < 0) throw new MissingLabelLogprobsError(options.map((option) => option.label));
  const chosen = options[best]!;
  return {
    label: chosen.label,
    capability: chosen.capability,
    model: chosen.model,
    logprobs: options.map((option, index) => ({ label: option.label, logprob: values[index]! })),
    source,
  };
}
