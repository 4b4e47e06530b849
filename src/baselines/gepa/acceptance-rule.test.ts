import assert from "node:assert/strict";
import { test } from "node:test";
import { acceptsMerge, acceptsMutation } from "./acceptance-rule.js";

test("a mutation is accepted only when its minibatch sum is strictly greater than the parent's", () => {
  assert.equal(acceptsMutation([1, 0, 0], [1, 1, 0]), true); // 2 > 1
  assert.equal(acceptsMutation([1, 0, 0], [0, 1, 0]), false); // 1 = 1: a tie is rejected
  assert.equal(acceptsMutation([0.5, 0.5], [1, 0]), false); // 1 = 1
  assert.equal(acceptsMutation([0.5, 0.5, 0], [0.2, 0.2, 0.7]), true); // 1.1 > 1
  assert.equal(acceptsMutation([1, 1, 1], [1, 1, 0]), false); // 2 < 3
});

test("a merge is accepted when its subsample sum is at least the better parent's", () => {
  assert.equal(acceptsMerge([[1, 0, 1], [0, 1, 0]], [1, 1, 0]), true); // 2 >= max(2, 1)
  assert.equal(acceptsMerge([[1, 0, 1], [0, 1, 0]], [1, 0, 0]), false); // 1 < 2
  assert.equal(acceptsMerge([[0, 0], [0, 1]], [1, 1]), true); // 2 >= 1
});
