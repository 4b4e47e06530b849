import assert from "node:assert/strict";
import { test } from "node:test";
import type { PoolEntry } from "../../baselines/gepa/candidate-pool.js";
import { withCandidatePrompt } from "../../baselines/gepa/candidate-system-prompt.js";
import { createModuleEnvironment, nativeModuleRunner } from "../../envs/modules/index.js";
import preconditionVerification from "../../synthesis/environments/precondition-verification.js";
import { bestWithin, snapshotCandidate } from "./gepa-method.js";

function entry(text: string, meanScore: number, discoveredAtBudget: number): PoolEntry {
  return { candidate: { tool_use: text }, parents: [], validationScores: [meanScore], meanScore, discoveredAtBudget };
}

test("the snapshot at a budget is the best candidate discovered within it; ties keep the earlier one", () => {
  const pool = [entry("seed", 0.2, 0), entry("better", 0.5, 40), entry("best", 0.9, 100), entry("tie", 0.5, 60)];
  assert.equal(bestWithin(pool, 0).candidate.tool_use, "seed");
  assert.equal(bestWithin(pool, 39).candidate.tool_use, "seed");
  assert.equal(bestWithin(pool, 80).candidate.tool_use, "better");
  assert.equal(bestWithin(pool, 100).candidate.tool_use, "best");
});

test("a snapshot deploys the agent's own prompt when it scores at least as well on validation as GEPA's best so far", () => {
  const pool = [entry("seed", 0.03, 0), entry("better", 0.5, 40)];
  assert.deepEqual(snapshotCandidate(pool, 10, 0.38), {}, "every candidate so far is worse than the own prompt");
  assert.deepEqual(snapshotCandidate(pool, 40, 0.38), { tool_use: "better" });
  assert.deepEqual(snapshotCandidate(pool, 40, 0.5), {}, "a tie keeps the own prompt");
});

test("the empty candidate leaves the environment's system prompt as it is", async () => {
  const environment = await createModuleEnvironment({ runner: nativeModuleRunner(preconditionVerification), seeds: [3] });
  const [task] = environment.tasks();
  assert.equal(withCandidatePrompt(environment, {}).systemPrompt(task!), environment.systemPrompt(task!));
  assert.match(withCandidatePrompt(environment, { tool_use: "Check first." }).systemPrompt(task!), /## Capabilities[\s\S]*### tool_use\n\nCheck first\.$/);
});
