import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { HAND_MADE } from "./comparison-test-support.js";
import { renderCurvesCsv } from "./curves-csv.js";

describe("renderCurvesCsv", () => {
  test("writes one row per curve point, each seed sorted by episodes", () => {
    const reversed = { ...HAND_MADE[1]!, curve: [...HAND_MADE[1]!.curve].reverse() };
    const lines = renderCurvesCsv([HAND_MADE[0]!, reversed]).trimEnd().split("\n");
    assert.deepEqual(lines, ["method,seed,episodes,score", "base,1,0,0.1", "base,1,0,0.35", "trace,1,0,0.1", "trace,1,990,0.65"]);
  });
});
