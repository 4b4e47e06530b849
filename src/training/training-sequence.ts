/** A token-in / token-out training sequence built from an episode's assistant turns by prefix extension. */
import type { Message, SampledTokens } from "../spec/message.js";
import { SampledTokensMismatchError } from "./sampled-tokens-mismatch-error.js";

/** Tokens of one sequence; `sampled[i]` marks policy-sampled tokens, `logprobs[i]` their sampling logprob (0 otherwise). */
export interface TrainingSequence {
  tokens: number[];
  sampled: boolean[];
  logprobs: number[];
  /** The episode's group advantage. */
  advantage: number;
}

function startsWith(sequence: readonly number[], prefix: readonly number[]): boolean {
  if (prefix.length > sequence.length) return false;
  for (let index = 0; index < prefix.length; index += 1) if (sequence[index] !== prefix[index]) return false;
  return true;
}

function checked(tokens: SampledTokens): SampledTokens {
  if (tokens.promptTokenIds.length === 0) throw new SampledTokensMismatchError(tokens, "empty prompt");
  if (tokens.completionLogprobs.length !== tokens.completionTokenIds.length) {
    throw new SampledTokensMismatchError(tokens, `${tokens.completionLogprobs.length} logprobs for ${tokens.completionTokenIds.length} completion tokens`);
  }
  return tokens;
}

/**
 * The sequences of an episode: a turn whose prompt extends the current sequence (previous prompt + completion) joins
 * it — the new prompt tokens unsampled, the completion sampled — otherwise a new sequence starts. Assistant messages
 * without sampled tokens (a fixed greeting) are skipped; turns with an empty completion add nothing sampled.
 */
export function buildTrainingSequences(messages: readonly Message[], advantage: number): TrainingSequence[] {
  const sequences: TrainingSequence[] = [];
  let current: TrainingSequence | undefined;
  for (const message of messages) {
    if (message.role !== "assistant" || message.tokens === undefined) continue;
    const { promptTokenIds, completionTokenIds, completionLogprobs } = checked(message.tokens);
    if (current === undefined || !startsWith(promptTokenIds, current.tokens)) {
      current = { tokens: [], sampled: [], logprobs: [], advantage };
      sequences.push(current);
    }
    const added = promptTokenIds.slice(current.tokens.length);
    current.tokens.push(...added, ...completionTokenIds);
    current.sampled.push(...added.map(() => false), ...completionTokenIds.map(() => true));
    current.logprobs.push(...added.map(() => 0), ...completionLogprobs);
  }
  return sequences.filter((sequence) => sequence.sampled.some(Boolean));
}

/** Policy-sampled tokens of a sequence that are predicted (every sampled token but a sampled first token). */
export function weightedTokenCount(sequence: TrainingSequence): number {
  return sequence.sampled.slice(1).filter(Boolean).length;
}
