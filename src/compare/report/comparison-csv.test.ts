import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { COMPARISON_COLUMNS, KIND_COLUMNS, renderComparisonCsv, renderKindsCsv } from "./comparison-csv.js";
import { HAND_MADE, result } from "./comparison-test-support.js";

describe("renderComparisonCsv", () => {
  const lines = renderComparisonCsv(HAND_MADE).trimEnd().split("\n");

  test("has a header and one row per method × seed × domain", () => {
    assert.equal(lines[0], COMPARISON_COLUMNS.join(","));
    assert.equal(lines.length, 1 + 2 * 3 * 2);
  });

  test("quotes a label with a comma and writes the numbers", () => {
    assert.equal(lines[3], 'trace,"TRACE, routed adapters",trace,1,airline,8,10,0.8,0.8,1000,990,20');
    assert.equal(lines[1], "base,Base agent,baseline,1,airline,5,10,0.5,0.5,1000,0,20");
  });

  test("doubles quotes inside a quoted field", () => {
    const [, row] = renderComparisonCsv([result({ method: "sft", label: 'SFT "gold"', group: "baseline", seed: 1 }, 1, 2, 3)]).split("\n");
    assert.match(row!, /^sft,"SFT ""gold""",baseline,/);
  });
});

describe("renderKindsCsv", () => {
  test("one row per method × seed × domain × kind of task, and nothing when no result names kinds", () => {
    assert.equal(renderKindsCsv(HAND_MADE), undefined);
    const made = result({ method: "trace", label: "TRACE", group: "trace", seed: 2 }, 0, 0, 10);
    const withKinds = { ...made, domains: [{ domain: "mini", passed: 3, total: 6, meanReward: 0.5, groups: { payment: { passed: 3, total: 4 }, composite: { passed: 0, total: 2 } } }] };
    assert.deepEqual(renderKindsCsv([withKinds])!.trimEnd().split("\n"), [KIND_COLUMNS.join(","), "trace,TRACE,trace,2,mini,payment,3,4,0.75", "trace,TRACE,trace,2,mini,composite,0,2,0"]);
  });
});
