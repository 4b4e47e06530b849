import assert from "node:assert/strict";
import { test } from "node:test";
import { categorySummary, formatCategoryComparison } from "./category-report.js";

test("figures per category: the three-distraction category leaves out its scrambled variants; two agents side by side", () => {
  const base = categorySummary([
    { name: "a", categories: ["SINGLE_TOOL_CALL"], similarity: 0.5, turnCount: 3 },
    { name: "b", categories: ["MULTIPLE_TOOL_CALL", "THREE_DISTRACTION_TOOLS", "TOOL_NAME_SCRAMBLED"], similarity: 0, turnCount: 5 },
  ]);
  assert.deepEqual(Object.keys(base), ["ALL_CATEGORIES", "MULTIPLE_TOOL_CALL", "SINGLE_TOOL_CALL", "TOOL_NAME_SCRAMBLED"]);
  assert.deepEqual(base.ALL_CATEGORIES, { count: 2, meanSimilarity: 0.25, perfect: 0, meanTurnCount: 4 });
  const trace = categorySummary([
    { name: "a", categories: ["SINGLE_TOOL_CALL"], similarity: 1, turnCount: 3 },
    { name: "b", categories: ["MULTIPLE_TOOL_CALL", "THREE_DISTRACTION_TOOLS", "TOOL_NAME_SCRAMBLED"], similarity: 0.5, turnCount: 4 },
  ]);
  const lines = formatCategoryComparison(base, trace).split("\n");
  assert.match(lines[0]!, /^category +n +base sim +TRACE sim +gain +base perf +TRACE perf$/);
  assert.match(lines[1]!, /^ALL_CATEGORIES +2 +0\.250 +0\.750 +\+0\.500 +0 +1$/);
  assert.match(lines[3]!, /^SINGLE_TOOL_CALL +1 +0\.500 +1\.000 +\+0\.500 +0 +1$/);
});
