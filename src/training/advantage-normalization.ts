/** How per-token advantages are scaled before the summed PPO loss: the explicit, logged normalisation of GRPO. */

/**
 * `token-mean`: every advantage divided by the weighted tokens of the whole batch (the loss is a mean over tokens);
 * `sequence-mean`: divided by the sequence's own weighted tokens and by the number of sequences (a mean of sequence
 * means); `none`: summed as is.
 */
export type AdvantageNormalization = "token-mean" | "sequence-mean" | "none";

export const ADVANTAGE_NORMALIZATIONS: readonly AdvantageNormalization[] = ["token-mean", "sequence-mean", "none"];
