import assert from "node:assert/strict";
import { test } from "node:test";
import { passCountsByGroup, passRate, scoreEpisodes, sumPassCounts } from "./pass-counts.js";

const episode = (taskId: string, success: boolean | null, reward: number | null) => ({ taskId, success, reward });

test("an environment's score counts only its tasks' episodes: passed = succeeded, mean reward with a missing reward as 0", () => {
  const episodes = [episode("a", true, 1), episode("a", false, 0.5), episode("b", null, null), episode("c", true, 1), episode("held-out-elsewhere", true, 1)];
  assert.deepEqual(scoreEpisodes(episodes, new Set(["a", "b", "c"])), { passed: 2, total: 4, meanReward: (1 + 0.5 + 0 + 1) / 4 });
  assert.deepEqual(scoreEpisodes(episodes, new Set(["missing"])), { passed: 0, total: 0, meanReward: 0 });
});

test("the overall pass count is solved / tasks over every domain, not a mean of the domains' rates", () => {
  const overall = sumPassCounts([
    { passed: 1, total: 2 },
    { passed: 9, total: 10 },
  ]);
  assert.deepEqual(overall, { passed: 10, total: 12 });
  assert.equal(passRate(overall), 10 / 12);
  assert.deepEqual(sumPassCounts([]), { passed: 0, total: 0 });
  assert.equal(passRate({ passed: 0, total: 0 }), 0, "nothing attempted is a rate of 0, not NaN");
});

test("pass counts per kind of task count every trial of the named tasks under each of its kinds, list every kind (sorted) and leave other tasks out", () => {
  const episodes = [episode("a", true, 1), episode("a", false, 0), episode("b", true, 1), episode("elsewhere", true, 1)];
  const groupOf = new Map([
    ["a", ["payment"]],
    ["b", ["composite", "composite · two parts"]],
    ["c", ["cancel"]],
  ]);
  const counts = passCountsByGroup(episodes, groupOf);
  assert.deepEqual(Object.keys(counts), ["cancel", "composite", "composite · two parts", "payment"]);
  assert.deepEqual(counts, { cancel: { passed: 0, total: 0 }, composite: { passed: 1, total: 1 }, "composite · two parts": { passed: 1, total: 1 }, payment: { passed: 1, total: 2 } });
});
