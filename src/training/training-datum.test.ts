import assert from "node:assert/strict";
import { test } from "node:test";
import { normalizationScales } from "./advantage-normalization.js";
import { batchDatums, sequenceDatum } from "./training-datum.js";
import type { TrainingSequence } from "./training-sequence.js";

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
