import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import { HAND_MADE, OPTIONS } from "./comparison-test-support.js";
import { DomainMismatchError } from "./domain-mismatch-error.js";
import { EmptyResultsError } from "./empty-results-error.js";
import { writeComparisonReport } from "./write-comparison-report.js";

const scratch = mkdtempSync(path.join(os.tmpdir(), "trace-compare-report-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

describe("writeComparisonReport", () => {
  test("writes the five files into a new directory and returns their paths", async () => {
    const directory = path.join(scratch, "report");
    const written = await writeComparisonReport(directory, HAND_MADE, OPTIONS);
    assert.deepEqual(
      written.map((file) => path.relative(directory, file)),
      ["comparison.md", "comparison.csv", "curves.csv", "curves.svg", "curves.png"],
    );
    assert.match(readFileSync(path.join(directory, "comparison.md"), "utf8"), /## Table 3: consolidation vs TRACE/);
    assert.equal(readFileSync(path.join(directory, "curves.csv"), "utf8").trimEnd().split("\n").length, 1 + 6 * 2);
  });

  test("throws typed errors before writing anything", async () => {
    const empty = path.join(scratch, "empty");
    await assert.rejects(writeComparisonReport(empty, [], OPTIONS), EmptyResultsError);
    const odd = { ...HAND_MADE[4]!, domains: HAND_MADE[4]!.domains.slice(1) };
    const mismatched = path.join(scratch, "mismatched");
    await assert.rejects(writeComparisonReport(mismatched, [...HAND_MADE.slice(0, 4), odd], OPTIONS), { name: "DomainMismatchError", method: "base", seed: 3 });
    assert.ok(!existsSync(empty) && !existsSync(mismatched));
    assert.ok(DomainMismatchError);
  });
});
