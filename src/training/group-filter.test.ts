import assert from "node:assert/strict";
import { test } from "node:test";
import { filterGroups } from "./group-filter.js";

test("groups with identical rewards are dropped and counted; the others keep their advantages", () => {
  const result = filterGroups([[0, 0, 0], [1, 0, 1, 0], [1, 1], [0.5, 0]]);
  assert.deepEqual(result.dropped, [0, 2]);
  assert.deepEqual(result.kept.map((group) => group.group), [1, 3]);
  assert.deepEqual(result.kept[0]!.advantages.map((value) => Number(value.toFixed(5))), [1, -1, 1, -1]);
  assert.deepEqual(filterGroups([]), { kept: [], dropped: [] });
});
