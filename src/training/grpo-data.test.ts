import assert from "node:assert/strict";
import type { Message, SampledTokens } from "../spec/message.js";
import { SampledTokensMismatchError } from "./sampled-tokens-mismatch-error.js";
import { test } from "node:test";
import { type TrainingSequence, batchDatums, buildTrainingSequences, filterGroups, groupAdvantages, normalizationScales, sequenceDatum, sequencesOfTurns, weightedTokenCount, withTrainerLogprobs } from "./grpo-data.js";

test("group advantages are (r − mean) / (std + ε); a group without variance gives none", () => {
  const advantages = groupAdvantages([1, 0, 0, 1]);
  assert.ok(advantages);
  assert.deepEqual(advantages.map((value) => Number(value.toFixed(5))), [1, -1, -1, 1]);
  const skewed = groupAdvantages([0.5, 0, 0, 0])!;
  assert.ok(Math.abs(skewed.reduce((sum, value) => sum + value, 0)) < 1e-9);
  assert.ok(Math.abs(skewed[0]! - Math.sqrt(3)) < 1e-5);
  assert.equal(groupAdvantages([0.25, 0.25, 0.25]), null);
  assert.equal(groupAdvantages([]), null);
});

test("groups with identical rewards are dropped and counted; the others keep their advantages", () => {
  const result = filterGroups([[0, 0, 0], [1, 0, 1, 0], [1, 1], [0.5, 0]]);
  assert.deepEqual(result.dropped, [0, 2]);
  assert.deepEqual(result.kept.map((group) => group.group), [1, 3]);
  assert.deepEqual(result.kept[0]!.advantages.map((value) => Number(value.toFixed(5))), [1, -1, 1, -1]);
  assert.deepEqual(filterGroups([]), { kept: [], dropped: [] });
});

const turn = (promptTokenIds: number[], completionTokenIds: number[], completionLogprobs = completionTokenIds.map((token) => -token / 100)): Message => ({
  role: "assistant",
  content: "",
  tokens: { promptTokenIds, completionTokenIds, completionLogprobs },
});

test("a turn whose prompt extends the previous prompt + completion joins the sequence; only completions are sampled", () => {
  const messages: Message[] = [
    { role: "system", content: "s" },
    { role: "assistant", content: "Hi, how can I help?" },
    { role: "user", content: "u" },
    turn([1, 2, 3], [10, 11]),
    { role: "tool", tool_call_id: "c", content: "r" },
    turn([1, 2, 3, 10, 11, 4, 5], [12]),
  ];
  const [sequence, ...rest] = buildTrainingSequences(messages, 0.5);
  assert.equal(rest.length, 0);
  assert.deepEqual(sequence, {
    tokens: [1, 2, 3, 10, 11, 4, 5, 12],
    sampled: [false, false, false, true, true, false, false, true],
    logprobs: [0, 0, 0, -0.1, -0.11, 0, 0, -0.12],
    advantage: 0.5,
  });
  assert.equal(weightedTokenCount(sequence), 3);
});

test("a turn whose prompt does not extend the sequence starts a new one", () => {
  // The second prompt re-renders token 11 as 99 (the template changed the history): no extension.
  const sequences = buildTrainingSequences([turn([1, 2], [10, 11]), turn([1, 2, 10, 99, 4], [12, 13]), turn([1, 2, 10, 99, 4, 12, 13, 5], [14])], -1);
  assert.deepEqual(sequences.map((sequence) => sequence.tokens), [[1, 2, 10, 11], [1, 2, 10, 99, 4, 12, 13, 5, 14]]);
  assert.deepEqual(sequences[1]!.sampled, [false, false, false, false, false, true, true, false, true]);
  // A shorter prompt than the sequence cannot extend it either.
  assert.equal(buildTrainingSequences([turn([1, 2, 3], [4]), turn([1, 2], [5])], 1).length, 2);
});

test("episodes without sampled tokens give no sequences; inconsistent tokens are an error carrying them", () => {
  assert.deepEqual(buildTrainingSequences([{ role: "assistant", content: "x" }, turn([1], [])], 1), []);
  const bad: SampledTokens = { promptTokenIds: [1], completionTokenIds: [2, 3], completionLogprobs: [-1] };
  assert.throws(
    () => buildTrainingSequences([{ role: "assistant", content: "", tokens: bad }], 1),
    (error: unknown) => error instanceof SampledTokensMismatchError && error.tokens === bad && /1 logprobs for 2 completion tokens/.test(error.message),
  );
  assert.throws(() => buildTrainingSequences([turn([], [1])], 1), SampledTokensMismatchError);
});

// Tokens 1 2 | 10 11 (sampled) | 4 (observation) | 12 (sampled).
const sequence: TrainingSequence = {
  tokens: [1, 2, 10, 11, 4, 12],
  sampled: [false, false, true, true, false, true],
  logprobs: [0, 0, -0.5, -0.25, 0, -2],
  advantage: 2,
};

test("a datum predicts token i + 1 at position i, with the target's weight, sampling logprob and advantage", () => {
  assert.deepEqual(sequenceDatum(sequence), {
    tokens: [1, 2, 10, 11, 4],
    targetTokens: [2, 10, 11, 4, 12],
    weights: [0, 1, 1, 0, 1],
    samplingLogprobs: [0, -0.5, -0.25, 0, -2],
    advantages: [0, 2, 2, 0, 2],
  });
  assert.deepEqual(sequenceDatum(sequence, 0.25).advantages, [0, 0.5, 0.5, 0, 0.5]);
});

test("normalisation: token mean over the batch, mean of sequence means, or none", () => {
  assert.deepEqual(normalizationScales("token-mean", [3, 1]), [0.25, 0.25]);
  assert.deepEqual(normalizationScales("sequence-mean", [4, 1]), [1 / 8, 1 / 2]);
  assert.deepEqual(normalizationScales("none", [3, 1]), [1, 1]);
  assert.deepEqual(normalizationScales("token-mean", [0]), [0]);
  const short: TrainingSequence = { tokens: [7, 8], sampled: [false, true], logprobs: [0, -1], advantage: -1 };
  const batch = batchDatums([sequence, short], "token-mean");
  assert.equal(batch.tokens, 4);
  assert.deepEqual(batch.datums.map((datum) => datum.advantages), [[0, 0.5, 0.5, 0, 0.5], [-0.25]]);
  assert.deepEqual(batchDatums([sequence, short], "sequence-mean").datums.map((datum) => datum.advantages), [[0, 1 / 3, 1 / 3, 0, 1 / 3], [-0.5]]);
});

test("a sequence with a re-rendered turn is marked rewritten; the trainer's logprobs replace its sampled targets' ones", () => {
  const tokens = (promptTokenIds: number[], completionTokenIds: number[]) => ({ promptTokenIds, completionTokenIds, completionLogprobs: completionTokenIds.map(() => -1) });
  const [first, second] = sequencesOfTurns([{ tokens: tokens([1, 2], [3]) }, { tokens: tokens([9, 2], [4]), rewritten: true }], 1);
  assert.equal(first!.rewritten, undefined);
  assert.equal(second!.rewritten, true);
  const datum = sequenceDatum(second!);
  assert.deepEqual(withTrainerLogprobs(datum, [-0.3, -0.2]).samplingLogprobs, [0, -0.2], "only the sampled target takes the trainer's logprob");
  assert.throws(() => withTrainerLogprobs(datum, [-0.3]), RangeError);
});
