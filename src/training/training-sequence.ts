/** A token-in / token-out training sequence built from an episode's assistant turns by prefix extension. */

/** Tokens of one sequence; `sampled[i]` marks policy-sampled tokens, `logprobs[i]` their sampling logprob (0 otherwise). */
export interface TrainingSequence {
  tokens: number[];
  sampled: boolean[];
  logprobs: number[];
  /** The episode's group advantage. */
  advantage: number;
}
