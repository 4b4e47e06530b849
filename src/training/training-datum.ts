/** Training sequences as trainer datums: position i predicts token i + 1; only policy-sampled targets carry weight. */
import type { Datum } from "../worker/trainer-types.js";
import { normalizationScales, type AdvantageNormalization } from "./advantage-normalization.js";
import { weightedTokenCount, type TrainingSequence } from "./training-sequence.js";

/**
 * `tokens` = sequence[:-1], `targetTokens` = sequence[1:]; at position i the weight, sampling logprob and advantage
 * are those of target i + 1 (0 where the target was not sampled by the policy). `scale` multiplies the advantage.
 */
export function sequenceDatum(sequence: TrainingSequence, scale = 1): Datum {
  const targets = sequence.sampled.slice(1);
  return {
    tokens: sequence.tokens.slice(0, -1),
    targetTokens: sequence.tokens.slice(1),
    weights: targets.map((sampled) => (sampled ? 1 : 0)),
    samplingLogprobs: sequence.logprobs.slice(1).map((logprob, index) => (targets[index] ? logprob : 0)),
    advantages: targets.map((sampled) => (sampled ? sequence.advantage * scale : 0)),
  };
}

/** A batch's datums with the normalisation folded into the advantages, and its weighted token count. */
export function batchDatums(sequences: readonly TrainingSequence[], normalization: AdvantageNormalization): { datums: Datum[]; tokens: number } {
  const counts = sequences.map(weightedTokenCount);
  const scales = normalizationScales(normalization, counts);
  return { datums: sequences.map((sequence, index) => sequenceDatum(sequence, scales[index])), tokens: counts.reduce((sum, count) => sum + count, 0) };
}
