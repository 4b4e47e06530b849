/** Acceptance: the port reproduces every scored conversation of ToolSandbox's own play and evaluate code. */
import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import { toolSandboxDataDirectory } from "../../testing/shared-data.js";
import { gradeChecks } from "./grade-checks.js";
import { loadGradingChecks, loadToolSandboxExport } from "./load-export.js";

const directory = toolSandboxDataDirectory();
const data = loadToolSandboxExport(directory);
const checks = loadGradingChecks(path.join(directory, "grading_checks.json.gz"));

test("every scripted conversation gives ToolSandbox's similarity, mapping and turn count", () => {
  const results = gradeChecks(data, { scripted_checks: checks.scripted_checks });
  assert.equal(results.length, 10);
  results.forEach((result, index) => {
    const expected = checks.scripted_checks[index]!.expected;
    assert.ok(result.agree, `${result.scenario} (${result.description}): ${result.recomputed} ≠ ${result.expected}`);
    assert.ok(result.mapping_agrees, `${result.scenario}: mapping ${JSON.stringify(result.evaluation.milestone_mapping)} ≠ ${JSON.stringify(expected.milestone_mapping)}`);
    assert.equal(result.evaluation.turn_count, expected.turn_count);
  });
});

test("UnhelpfulAgent's scores on all 1032 scenarios are reproduced", () => {
  const baseline = checks.unhelpful_agent_baseline ?? [];
  assert.equal(baseline.length, 1032);
  const results = gradeChecks(data, { scripted_checks: baseline });
  const disagreements = results.filter((result, index) => !result.agree || !result.mapping_agrees || result.evaluation.turn_count !== baseline[index]!.expected.turn_count);
  assert.deepEqual(disagreements.map((result) => result.scenario), []);
  assert.ok(results.some((result) => result.recomputed > 0), "some scenarios give the unhelpful agent partial credit");
});
