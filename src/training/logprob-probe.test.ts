import assert from "node:assert/strict";
import { test } from "node:test";
import type { ChatClient } from "../models/chat-client.js";
import type { TrainerClient } from "../worker/trainer-client.js";
import { defaultProbeRelativeTolerance, defaultProbeTolerance, probeLogprobs } from "./logprob-probe.js";
import { SamplerLogprobMismatchError } from "./sampler-logprob-mismatch-error.js";

test("the probe's default tolerance follows the trainer's dtype", () => {
  assert.equal(defaultProbeTolerance("float32"), 1e-3);
  assert.equal(defaultProbeTolerance("bfloat16"), 1e-1);
  assert.equal(defaultProbeTolerance("float16"), 1e-1);
  assert.equal(defaultProbeRelativeTolerance("float32"), 0);
  assert.equal(defaultProbeRelativeTolerance("bfloat16"), 2e-2);
});

/** A sampler that returned `sampled` logprobs for three completion tokens, and a bf16 trainer that scores them `scored`. */
function probe(sampled: number[], scored: number[], dtype = "bfloat16") {
  const chat = {
    complete: () => Promise.resolve({ message: { role: "assistant", content: "hi", tokens: { promptTokenIds: [1, 2], completionTokenIds: sampled.map((_, index) => 10 + index), completionLogprobs: sampled } }, usage: { promptTokens: 2, completionTokens: sampled.length } }),
  } as unknown as ChatClient;
  // The trainer's logprobs per position of the datum: the prompt's last position predicts the first completion token.
  const trainer = { health: () => Promise.resolve({ dtype }), forward: () => Promise.resolve([[0, ...scored]]) } as unknown as TrainerClient;
  return probeLogprobs({ chat, trainer, adapter: "a", model: "a-v1" });
}

test("in bf16 an unlikely token may differ by more than a likely one; a difference on a likely token still fails", async () => {
  // 0.125 at logprob −15 is within 0.1 + 0.02 × 15 = 0.4.
  assert.equal(await probe([-0.1, -15.125, -2], [-0.1, -15, -2.02]), 0.125);
  await assert.rejects(probe([-0.3, -15, -2], [-0.1, -15, -2]), (error: unknown) => {
    assert.ok(error instanceof SamplerLogprobMismatchError);
    assert.match(error.message, /\|difference\| 2\.000e-1 > tolerance 0\.102 at a token of logprob -0\.100/);
    return true;
  });
  // In float32 the tolerance is absolute.
  await assert.rejects(probe([-0.1, -15.01, -2], [-0.1, -15, -2], "float32"), SamplerLogprobMismatchError);
});
