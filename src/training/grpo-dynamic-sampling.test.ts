import assert from "node:assert/strict";
import { test } from "node:test";
import type { Task } from "../spec/task.js";
import { informativeGroupsWanted, mostEpisodesPerIteration, wantsAnotherRound } from "./grpo-dynamic-sampling.js";
import { planIteration, ROUND_SEED_STRIDE } from "./grpo-schedule.js";

test("an iteration wants ⌈share × G⌉ informative groups", () => {
  assert.equal(informativeGroupsWanted(8, 0.5), 4);
  assert.equal(informativeGroupsWanted(3, 0.5), 2);
  assert.equal(informativeGroupsWanted(10, 0.3), 3, "0.3 × 10 is 3, float noise aside");
  assert.equal(informativeGroupsWanted(4, 1), 4);
});

test("another round while too few groups are informative and extra rounds are left", () => {
  const base = { groups: 8, share: 0.5, extraRounds: 2 };
  assert.equal(wantsAnotherRound({ ...base, informative: 3, round: 0 }), true);
  assert.equal(wantsAnotherRound({ ...base, informative: 4, round: 0 }), false, "half of G is enough");
  assert.equal(wantsAnotherRound({ ...base, informative: 3, round: 1 }), true);
  assert.equal(wantsAnotherRound({ ...base, informative: 3, round: 2 }), false, "the limit");
  assert.equal(wantsAnotherRound({ ...base, informative: 0, round: 0, extraRounds: 0 }), false, "off");
});

test("an extra round plans other tasks and other sampling seeds than round 0; round 0 is the plain plan", () => {
  const tasks: Task[] = Array.from({ length: 20 }, (_, index) => ({ id: `t${index}`, userInstructions: "" }));
  const first = planIteration(tasks, 3, 4, 2, 7);
  assert.deepEqual(planIteration(tasks, 3, 4, 2, 7, 0), first);
  const extra = planIteration(tasks, 3, 4, 2, 7, 1);
  assert.deepEqual(extra, planIteration(tasks, 3, 4, 2, 7 + ROUND_SEED_STRIDE));
  const seeds = new Set(first.flatMap((group) => group.seeds));
  assert.ok(extra.every((group) => group.seeds.every((seed) => !seeds.has(seed))));
  assert.notDeepEqual(extra.map((group) => group.task.id), first.map((group) => group.task.id));
});

test("a budget must allow G × K × (1 + extra rounds) episodes per iteration", () => {
  assert.equal(mostEpisodesPerIteration(8, 16, 0), 128);
  assert.equal(mostEpisodesPerIteration(8, 16, 2), 384);
});
