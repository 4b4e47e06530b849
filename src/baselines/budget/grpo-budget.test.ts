import assert from "node:assert/strict";
import { test } from "node:test";
import type { GrpoIterationMetrics } from "../../training/grpo-types.js";
import { grpoBudgetHooks, iterationsWithin } from "./grpo-budget.js";
import { createRolloutBudget } from "./rollout-budget.js";

function metrics(iteration: number, episodes: number): GrpoIterationMetrics {
  return {
    iteration, rewardMean: 0, rewardStd: 0, episodes, erroredEpisodes: 0, groupsKept: 0, groupsDropped: 0, samplingRounds: 1, informativeShare: 0,
    hintedShare: 0, rewardMeanHinted: null, rewardMeanPlain: 0, turnsKept: 0, turnsDropped: 0, toolResultsTruncated: 0, sequences: 0, tokens: 0,
    normalization: "token-mean", loss: null, clipFraction: null, approxKl: null, entropy: null, gradNorm: null, learningRate: null, probeLogprobDifference: null, seconds: 0,
  };
}

/** runGrpo's control flow: check the signal at the top of each iteration, sample G × K episodes, call onIteration. */
function syntheticGrpo(options: { iterations: number; groups: number; samples: number; signal: AbortSignal; onIteration: (metrics: GrpoIterationMetrics) => void }): number {
  let ran = 0;
  for (let iteration = 1; iteration <= options.iterations; iteration += 1) {
    if (options.signal.aborted) break;
    options.onIteration(metrics(iteration, options.groups * options.samples));
    ran += 1;
  }
  return ran;
}

test("GRPO's G × K × iterations episodes are charged as training through onIteration", () => {
  const budget = createRolloutBudget({ limit: 1000 });
  budget.charge("calibration", 64);
  const seen: number[] = [];
  const hooks = grpoBudgetHooks({ budget, episodesPerIteration: 4 * 8, onIteration: (metric) => seen.push(metric.iteration) });
  const ran = syntheticGrpo({ iterations: 10, groups: 4, samples: 8, ...hooks });
  assert.equal(ran, 10);
  assert.deepEqual(seen, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  assert.deepEqual(budget.summary().byCategory, { training: 4 * 8 * 10, calibration: 64, selection: 0 });
  assert.equal(hooks.signal.aborted, false);
  assert.equal(hooks.exhausted(), false);
});

test("the signal stops GRPO when the next iteration would not fit; the ledger never exceeds its limit", () => {
  const budget = createRolloutBudget({ limit: 100 });
  const hooks = grpoBudgetHooks({ budget, episodesPerIteration: 2 * 4 });
  const ran = syntheticGrpo({ iterations: 40, groups: 2, samples: 4, ...hooks });
  assert.equal(ran, iterationsWithin(100, 2, 4));
  assert.equal(ran, 12);
  assert.equal(budget.spent(), 96);
  assert.equal(hooks.signal.aborted, true);
  assert.equal(hooks.exhausted(), true);
});

test("a budget that cannot pay one iteration aborts before the first; the caller's signal also stops it", () => {
  const small = grpoBudgetHooks({ budget: createRolloutBudget({ limit: 7 }), episodesPerIteration: 8 });
  assert.equal(small.signal.aborted, true);
  const caller = new AbortController();
  const hooks = grpoBudgetHooks({ budget: createRolloutBudget({ limit: 100 }), episodesPerIteration: 8, signal: caller.signal });
  assert.equal(hooks.signal.aborted, false);
  caller.abort();
  assert.equal(hooks.signal.aborted, true);
  assert.equal(hooks.exhausted(), false);
});

test("episodesAllowed reports what the ledger has left, for runGrpo to stop extra rounds that would not fit", () => {
  const budget = createRolloutBudget({ limit: 100 });
  const hooks = grpoBudgetHooks({ budget, episodesPerIteration: 8 });
  assert.equal(hooks.episodesAllowed(), 100);
  hooks.onIteration({ iteration: 1, episodes: 24 } as Parameters<typeof hooks.onIteration>[0]);
  assert.equal(hooks.episodesAllowed(), 76);
});
