import assert from "node:assert/strict";
import { test } from "node:test";
import { capabilityIterations, shareIterations } from "./capability-iterations.js";
import type { PipelineContext } from "./pipeline-context.js";

test("iterations are shared by weight, at least one each, summing to the total", () => {
  // The GPU size's analysis: Cov 0.582, 0.203, 0.190 over 24 iterations.
  assert.deepEqual(shareIterations(24, [0.582, 0.203, 0.19]), [14, 5, 5]);
  assert.deepEqual(shareIterations(12, [0.582, 0.203, 0.19]), [7, 3, 2]);
  assert.deepEqual(shareIterations(6, [0.9, 0.05, 0.05]), [4, 1, 1]);
  // A capability with no weight still gets one iteration.
  assert.deepEqual(shareIterations(10, [1, 0]), [9, 1]);
  // Equal weights (or none at all) share equally; a remainder goes to the earlier capability.
  assert.deepEqual(shareIterations(24, [0.3, 0.3, 0.3]), [8, 8, 8]);
  assert.deepEqual(shareIterations(7, [0, 0]), [4, 3]);
  assert.deepEqual(shareIterations(5, []), []);
  for (const [total, weights] of [[24, [0.5, 0.2, 0.1]], [9, [0.9, 0.05, 0.05]], [100, [0.33, 0.33, 0.34]]] as const) {
    const counts = shareIterations(total, weights);
    assert.equal(counts.reduce((all, count) => all + count, 0), total);
    assert.ok(counts.every((count) => count >= 1));
  }
});

test("too few iterations or a bad weight is a clear error", () => {
  assert.throws(() => shareIterations(2, [1, 1, 1]), /2 iterations cannot give each of 3 capabilities one/);
  assert.throws(() => shareIterations(6, [1, -1]), /finite and non-negative: 1, -1/);
});

test("capabilityIterations: equal shares by default, Cov shares (0 for an unlisted capability) under allocation coverage", () => {
  const context = (allocation: "equal" | "coverage") =>
    ({
      config: { training: { iterations: 8, allocation }, analysis: { labeler: "reference" } },
      run: { readSelectedCapabilities: () => [{ skill: "complete", mean_cov: 0.582 }, { skill: "arguments", mean_cov: 0.203 }, { skill: "precondition", mean_cov: 0.19 }, { skill: "communicate", mean_cov: 0.468 }] },
    }) as unknown as PipelineContext;
  assert.deepEqual([...capabilityIterations(context("equal"), ["complete", "arguments", "precondition"])], [["complete", 8], ["arguments", 8], ["precondition", 8]]);
  assert.deepEqual([...capabilityIterations(context("coverage"), ["complete", "arguments", "precondition"])], [["complete", 14], ["arguments", 5], ["precondition", 5]]);
  assert.deepEqual([...capabilityIterations(context("coverage"), ["complete", "unlisted"])], [["complete", 15], ["unlisted", 1]]);
});
