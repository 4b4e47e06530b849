/** A sampled completion as a trainer datum: the completion's tokens carry its sampling logprobs and advantage, the prompt's are masked. */
import type { SampledTokens } from "../spec/message.js";
import type { Datum } from "./trainer-types.js";

/**
 * `tokens` = prompt + completion without its last token, `targetTokens` = the same shifted by one, so position i
 * predicts token i + 1; only completion positions have weight 1. `advantage` goes on every completion token as is
 * (the caller folds any normalisation, e.g. 1 / tokens in the batch for a token mean, into it).
 */
export function completionDatum(sampled: SampledTokens, advantage: number): Datum {
  const { promptTokenIds, completionTokenIds, completionLogprobs } = sampled;
  if (promptTokenIds.length === 0 || completionTokenIds.length === 0) {
    throw new RangeError(`a datum needs a prompt and a completion (got ${promptTokenIds.length} and ${completionTokenIds.length} tokens)`);
  }
  if (completionLogprobs.length !== completionTokenIds.length) {
    throw new RangeError(`${completionLogprobs.length} completion logprobs for ${completionTokenIds.length} completion tokens`);
  }
  const sequence = [...promptTokenIds, ...completionTokenIds];
  const promptPositions = promptTokenIds.length - 1;
  const onCompletion = <T>(promptValue: T, completionValues: readonly T[]): T[] => [...Array<T>(promptPositions).fill(promptValue), ...completionValues];
  return {
    tokens: sequence.slice(0, -1),
    targetTokens: sequence.slice(1),
    weights: onCompletion(0, completionTokenIds.map(() => 1)),
    samplingLogprobs: onCompletion(0, completionLogprobs),
    advantages: onCompletion(0, completionTokenIds.map(() => advantage)),
  };
}
