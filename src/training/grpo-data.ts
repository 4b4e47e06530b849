/**
 * GRPO's data processing, in the order it happens: rewards of a group → group-relative advantages (groups without
 * variance dropped and counted) → an episode's token-in / token-out training sequences (built from its assistant
 * turns by prefix extension) → trainer datums, with the advantage normalisation folded in.
 */
import type { Message, SampledTokens } from "../spec/message.js";
import type { Datum } from "../worker/trainer-types.js";
import { SampledTokensMismatchError } from "./sampled-tokens-mismatch-error.js";

// -- Group-relative advantages ---------------------------------------------------------------------------------

/** `(r − mean) / (std + epsilon)` per reward (population std); null when every reward is equal (no learning signal). */
export function groupAdvantages(rewards: readonly number[], epsilon = 1e-6): number[] | null {
  if (rewards.length === 0) return null;
  const mean = rewards.reduce((sum, reward) => sum + reward, 0) / rewards.length;
  const variance = rewards.reduce((sum, reward) => sum + (reward - mean) ** 2, 0) / rewards.length;
  if (variance === 0) return null;
  const std = Math.sqrt(variance);
  return rewards.map((reward) => (reward - mean) / (std + epsilon));
}

// -- Groups without signal are dropped -------------------------------------------------------------------------

/** A group that kept its signal: the index of the group and one advantage per member. */
export interface KeptGroup {
  group: number;
  advantages: number[];
}

export interface GroupFilterResult {
  kept: KeptGroup[];
  /** Indices of groups with identical rewards (no learning signal). */
  dropped: number[];
}

/** Advantages of every group with reward variance; the rest dropped. */
export function filterGroups(groups: readonly (readonly number[])[], epsilon?: number): GroupFilterResult {
  const kept: KeptGroup[] = [];
  const dropped: number[] = [];
  groups.forEach((rewards, group) => {
    const advantages = groupAdvantages(rewards, epsilon);
    if (advantages === null) dropped.push(group);
    else kept.push({ group, advantages });
  });
  return { kept, dropped };
}

// -- Training sequences ----------------------------------------------------------------------------------------

/** Tokens of one sequence; `sampled[i]` marks policy-sampled tokens, `logprobs[i]` their sampling logprob (0 otherwise). */
export interface TrainingSequence {
  tokens: number[];
  sampled: boolean[];
  logprobs: number[];
  /** The episode's group advantage. */
  advantage: number;
  /** Set when a turn's prompt was re-rendered for training (`grpo-turns.ts`): `logprobs` are then the trainer's, filled in later. */
  rewritten?: true;
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
 * The sequences of an episode's trained turns, in order: a turn whose prompt extends the current sequence (previous
 * prompt + completion) joins it — the new prompt tokens unsampled, the completion sampled — otherwise a new sequence
 * starts. Turns with an empty completion add nothing sampled. A sequence with a re-rendered turn is marked `rewritten`.
 */
export function sequencesOfTurns(turns: readonly { tokens: SampledTokens; rewritten?: boolean }[], advantage: number): TrainingSequence[] {
  const sequences: TrainingSequence[] = [];
  let current: TrainingSequence | undefined;
  for (const turn of turns) {
    const { promptTokenIds, completionTokenIds, completionLogprobs } = checked(turn.tokens);
    if (current === undefined || !startsWith(promptTokenIds, current.tokens)) {
      current = { tokens: [], sampled: [], logprobs: [], advantage };
      sequences.push(current);
    }
    if (turn.rewritten === true) current.rewritten = true;
    const added = promptTokenIds.slice(current.tokens.length);
    current.tokens.push(...added, ...completionTokenIds);
    current.sampled.push(...added.map(() => false), ...completionTokenIds.map(() => true));
    current.logprobs.push(...added.map(() => 0), ...completionLogprobs);
  }
  return sequences.filter((sequence) => sequence.sampled.some(Boolean));
}

/** The sequences of every sampled assistant turn of an episode (messages without sampled tokens, a fixed greeting, skipped). */
export function buildTrainingSequences(messages: readonly Message[], advantage: number): TrainingSequence[] {
  return sequencesOfTurns(
    messages.flatMap((message) => (message.role === "assistant" && message.tokens !== undefined ? [{ tokens: message.tokens }] : [])),
    advantage,
  );
}

/** The datum with the trainer's logprobs of its sampled targets as sampling logprobs (for a re-rendered sequence). */
export function withTrainerLogprobs(datum: Datum, logprobs: readonly number[]): Datum {
  if (logprobs.length !== datum.targetTokens.length) throw new RangeError(`${logprobs.length} trainer logprobs for ${datum.targetTokens.length} targets`);
  return { ...datum, samplingLogprobs: logprobs.map((logprob, index) => (datum.weights?.[index] === 0 ? 0 : logprob)) };
}

/** Policy-sampled tokens of a sequence that are predicted (every sampled token but a sampled first token). */
export function weightedTokenCount(sequence: TrainingSequence): number {
  return sequence.sampled.slice(1).filter(Boolean).length;
}

// -- Advantage normalisation -----------------------------------------------------------------------------------

/**
 * `token-mean`: every advantage divided by the weighted tokens of the whole batch (the loss is a mean over tokens);
 * `sequence-mean`: divided by the sequence's own weighted tokens and by the number of sequences (a mean of sequence
 * means); `none`: summed as is.
 */
export type AdvantageNormalization = "token-mean" | "sequence-mean" | "none";

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

// -- Datums ------------------------------------------------------------------------------------------------------

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
