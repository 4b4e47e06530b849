import assert from "node:assert/strict";
import { test } from "node:test";
import { completionDatum } from "./completion-datum.js";

test("a completion datum predicts each next token; only completion positions carry weight, logprobs and advantage", () => {
  const datum = completionDatum({ promptTokenIds: [10, 11, 12], completionTokenIds: [20, 21], completionLogprobs: [-1.5, -2.5] }, 0.75);
  assert.deepEqual(datum, {
    tokens: [10, 11, 12, 20],
    targetTokens: [11, 12, 20, 21],
    weights: [0, 0, 1, 1],
    samplingLogprobs: [0, 0, -1.5, -2.5],
    advantages: [0, 0, 0.75, 0.75],
  });
  assert.throws(() => completionDatum({ promptTokenIds: [1], completionTokenIds: [], completionLogprobs: [] }, 1), RangeError);
  assert.throws(() => completionDatum({ promptTokenIds: [1], completionTokenIds: [2], completionLogprobs: [] }, 1), /0 completion logprobs for 1 completion tokens/);
});
