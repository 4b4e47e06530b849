/** One choice offered to the router: a capability adapter, or the base model ("none of these"). */
export interface RoutingOption {
  /** The one-token label the router answers with ("A", "B", …). */
  label: string;
  /** The adapter's capability; null for "none of these" (the base model). */
  capability: string | null;
  /** The served model name to sample when this option is chosen (an adapter name, or the base model's). */
  model: string;
  /** What the capability is (empty for "none of these"). */
  description: string;
  /** One successful trajectory from the capability's synthetic environment, as a compact transcript. */
  example: string;
}

/** The decision for one task. */
export interface RoutingDecision {
  label: string;
  capability: string | null;
  model: string;
  /** Every option's label logprob (null when the server gave none for it), in option order. */
  logprobs: { label: string; logprob: number | null }[];
  /** Where the scores came from (`retrieval`: log vote shares of the retrieval router). */
  source: "label_logprobs" | "top_logprobs" | "retrieval";
}

/**
 * The `capability` of the routing option for multi-part requests (`routing.multiPartSimilarity`): the capability
 * adapters merged into one. Not a capability of the analysis; the parentheses keep it apart from their names.
 */
export const MERGED_ADAPTERS_ROUTE = "(merged adapters)";
