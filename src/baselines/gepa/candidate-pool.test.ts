import assert from "node:assert/strict";
import { test } from "node:test";
import { CandidatePool } from "./candidate-pool.js";
import { MinibatchSampler } from "./minibatch-sampler.js";
import { seededRandom } from "./random-source.js";

test("the pool keeps means, the best (earliest on ties), ancestors and a round-robin pointer a child inherits", () => {
  const pool = new CandidatePool(["a", "b", "c"]);
  pool.add({ candidate: { a: "A", b: "B", c: "C" }, parents: [], validationScores: [0, 1], discoveredAtBudget: 0 });
  assert.deepEqual([pool.takeNextComponent(0), pool.takeNextComponent(0)], ["a", "b"]);
  pool.add({ candidate: { a: "A", b: "B2", c: "C" }, parents: [0], validationScores: [1, 1], discoveredAtBudget: 8 });
  pool.add({ candidate: { a: "A", b: "B2", c: "C3" }, parents: [1], validationScores: [1, 0], discoveredAtBudget: 14 });
  pool.add({ candidate: { a: "A4", b: "B2", c: "C" }, parents: [1], validationScores: [1, 1], discoveredAtBudget: 20 });
  assert.deepEqual(pool.meanScores(), [0.5, 1, 0.5, 1]);
  assert.equal(pool.best(), 1);
  assert.deepEqual([...pool.ancestors(2)].sort(), [0, 1]);
  // Candidate 1 inherits its parent's pointer (2: component c), then wraps around.
  assert.deepEqual([pool.takeNextComponent(1), pool.takeNextComponent(1), pool.takeNextComponent(0)], ["c", "a", "c"]);
});

test("minibatches cover the shuffled training set once per epoch, padded to a multiple of the size", () => {
  const sampler = new MinibatchSampler(5, 3, seededRandom(1));
  const epoch = [...sampler.next(0), ...sampler.next(1)];
  assert.equal(epoch.length, 6);
  assert.deepEqual([...new Set(epoch)].sort(), [0, 1, 2, 3, 4]);
  assert.equal(sampler.next(2).length, 3);
  const again = new MinibatchSampler(5, 3, seededRandom(1));
  assert.deepEqual([...again.next(0), ...again.next(1)], epoch);
});
