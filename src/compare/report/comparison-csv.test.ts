import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { COMPARISON_COLUMNS, renderComparisonCsv } from "./comparison-csv.js";
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
