import assert from "node:assert/strict";
import { test } from "node:test";
import { formatAgreementTable, labelAgreement } from "./label-agreement.js";
import type { CapabilityLabelLists, RunFile } from "./run-file.js";

function run(labels: Record<string, Partial<CapabilityLabelLists>>): RunFile {
  const full = Object.fromEntries(
    Object.entries(labels).map(([name, lists]) => [name, { lacking_failed: [], present_failed: [], na_failed: [], lacking_passed: [], present_passed: [], na_passed: [], ...lists }]),
  );
  return { attempt: 1, totals: { total_failed: 2, total_passed: 2 }, labels: full };
}

test("agreement, Cohen's κ and LACKING overlap per shared capability, worked out by hand", () => {
  const reference = run({ alpha: { lacking_failed: ["f1", "f2"], present_passed: ["p1"], na_passed: ["p2"] }, only_reference: { na_failed: ["f1"] } });
  // Run A agrees on f1, f2, p1 and says PRESENT for p2; run B agrees on f1 and p2 only.
  const runA = run({ alpha: { lacking_failed: ["f1", "f2"], present_passed: ["p1", "p2"] } });
  const runB = run({ alpha: { lacking_failed: ["f1"], present_failed: ["f2"], lacking_passed: ["p1"], na_passed: ["p2"] }, only_llm: { na_failed: ["f1"] } });
  const [alpha, ...rest] = labelAgreement(reference, [runA, runB]);
  assert.equal(rest.length, 0, "capabilities labeled by one side only are not compared");
  assert.ok(alpha);
  assert.equal(alpha.pairs, 8);
  assert.equal(alpha.agreement, 5 / 8);
  // Reference over the 8 pairs: LACKING 4, PRESENT 2, NA 2. Compared: LACKING 4 (f1, f2, f1, p1), PRESENT 3 (p1, p2, f2), NA 1 (p2).
  const chance = (4 / 8) * (4 / 8) + (2 / 8) * (3 / 8) + (2 / 8) * (1 / 8);
  assert.ok(Math.abs((alpha.kappa ?? NaN) - (5 / 8 - chance) / (1 - chance)) < 1e-12);
  // LACKING in both: (f1,A) (f2,A) (f1,B) = 3; in either: those plus (f2,B) and (p1,B) = 5.
  assert.equal(alpha.lackingOverlap, 3 / 5);
  assert.match(formatAgreementTable([alpha]), /\| alpha \| 8 \| 0\.625 \| [0-9.]+ \| 0\.600 \|/);
});
