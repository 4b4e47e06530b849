import assert from "node:assert/strict";
import { test } from "node:test";
import { CandidatePool } from "./candidate-pool.js";
import { MergeHistory, mergeSubsample, planMerge } from "./merge-proposal.js";
import { seededRandom } from "./random-source.js";

function siblings(): CandidatePool {
  const pool = new CandidatePool(["a", "b"]);
  pool.add({ candidate: { a: "A0", b: "B0" }, parents: [], validationScores: [0, 0, 0, 0, 0], discoveredAtBudget: 0 });
  pool.add({ candidate: { a: "A1", b: "B0" }, parents: [0], validationScores: [1, 0, 1, 0, 0], discoveredAtBudget: 11 });
  pool.add({ candidate: { a: "A0", b: "B1" }, parents: [0], validationScores: [0, 1, 0, 1, 0], discoveredAtBudget: 22 });
  return pool;
}

test("two siblings that changed different components merge into both changes, once", () => {
  const pool = siblings();
  const history = new MergeHistory();
  // Candidate 0 is dominated (only best on instance 4, shared with 1 and 2); 1 and 2 share ancestor 0.
  assert.deepEqual(planMerge(pool, history, seededRandom(0)), { candidate: { a: "A1", b: "B1" }, parents: [1, 2], ancestor: 0 });
  history.triplets.add("1,2,0");
  assert.equal(planMerge(pool, history, seededRandom(0)), undefined);
});

test("no merge when one candidate descends from the other or the pool is too small", () => {
  const pool = new CandidatePool(["a"]);
  pool.add({ candidate: { a: "A0" }, parents: [], validationScores: [1, 0], discoveredAtBudget: 0 });
  pool.add({ candidate: { a: "A1" }, parents: [0], validationScores: [0, 1], discoveredAtBudget: 5 });
  assert.equal(planMerge(pool, new MergeHistory(), seededRandom(0)), undefined);
  pool.add({ candidate: { a: "A2" }, parents: [1], validationScores: [1, 1], discoveredAtBudget: 9 });
  assert.equal(planMerge(pool, new MergeHistory(), seededRandom(0)), undefined);
});

test("the merge subsample takes up to ⌈5/3⌉ = 2 where the first parent wins, where the second wins, where they tie", () => {
  const picked = mergeSubsample([1, 0, 1, 0, 0, 1], [0, 1, 0, 1, 0, 0], seededRandom(3));
  assert.equal(picked.length, 5);
  assert.equal(picked.filter((index) => [0, 2, 5].includes(index)).length, 2);
  assert.equal(picked.filter((index) => [1, 3].includes(index)).length, 2);
  assert.ok(picked.includes(4));
});
