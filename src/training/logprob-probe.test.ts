import assert from "node:assert/strict";
import { test } from "node:test";
import { defaultProbeTolerance } from "./logprob-probe.js";

test("the probe's default tolerance follows the trainer's dtype", () => {
  assert.equal(defaultProbeTolerance("float32"), 1e-3);
  assert.equal(defaultProbeTolerance("bfloat16"), 1e-1);
  assert.equal(defaultProbeTolerance("float16"), 1e-1);
});
