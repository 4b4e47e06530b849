/** How per-token advantages are scaled before the summed PPO loss: the explicit, logged normalisation of GRPO. */

/**
 * `token-mean`: every advantage divided by the weighted tokens of the whole batch (the loss is a mean over tokens);
 * `sequence-mean`: divided by the sequence's own weighted tokens and by the number of sequences (a mean of sequence
 * means); `none`: summed as is.
 */
export type AdvantageNormalization = "token-mean" | "sequence-mean" | "none";

export const ADVANTAGE_NORMALIZATIONS: readonly AdvantageNormalization[] = ["token-mean", "sequence-mean", "none"];

/** The factor each sequence's advantages are multiplied by, given each sequence's weighted tokens. */
export function normalizationScales(normalization: AdvantageNormalization, weightedTokens: readonly number[]): number[] {
  const total = weightedTokens.reduce((sum, count) => sum + count, 0);
  switch (normalization) {
    case "token-mean":
      return weightedTokens.map(() => (total === 0 ? 0 : 1 / total));
    case "sequence-mean":
      return weightedTokens.map((count) => (count === 0 ? 0 : 1 / (count * weightedTokens.length)));
    case "none":
      return weightedTokens.map(() => 1);
  }
}
