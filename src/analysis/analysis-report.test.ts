import assert from "node:assert/strict";
import { test } from "node:test";
import type { CapabilityScore } from "./aggregate-capabilities.js";
import type { ScoresFile } from "./analysis-directory.js";
import { formatAnalysisReport, marginalCapabilities } from "./analysis-report.js";

function score(skill: string, status: "kept" | "rejected", share?: number): CapabilityScore {
  return {
    skill,
    description: "",
    mean_cov: 0.2,
    std_cov: 0,
    mean_delta: status === "kept" ? 0.25 : 0.1,
    std_delta: 0,
    n_runs_passed: status === "kept" ? 1 : 0,
    n_runs_total: 1,
    passes_consistency: status === "kept",
    example_failed_cases: [],
    status,
    per_run: [],
    ...(share === undefined ? {} : { kept_in_resamples: share }),
  };
}

const scoresFile = (capabilities: CapabilityScore[]): ScoresFile => ({ thresholds: { coverage: 0.1, gap: 0.2, minRuns: 1 }, runs: 1, run_files: ["run_01.json"], capabilities });

test("the report shows each capability's share of resamples and names the marginal decisions, kept or rejected", () => {
  const scores = scoresFile([score("firm", "kept", 1), score("edge", "kept", 0.51), score("close", "rejected", 0.3), score("never", "rejected", 0)]);
  const report = formatAnalysisReport({ title: "t", scores, runs: [] });
  assert.match(report, /\| firm \| .* \| yes \| 100% \|/);
  assert.match(report, /\| edge \| .* \| yes \| 51% \(marginal\) \|/);
  assert.match(report, /\| close \| .* \| no \| 30% \(marginal\) \|/);
  assert.match(report, /\| never \| .* \| no \| 0% \|/);
  assert.match(report, /\*\*Marginal decisions\*\*: edge \(kept; kept in 51% of resamples\); close \(rejected; kept in 30% of resamples\)\./);
  assert.deepEqual(marginalCapabilities(scores).map((entry) => entry.skill), ["edge", "close"]);
});

test("scores written before the resampling existed show a dash and no explanation", () => {
  const report = formatAnalysisReport({ title: "t", scores: scoresFile([score("old", "kept")]), runs: [] });
  assert.match(report, /\| old \| .* \| yes \| - \|/);
  assert.doesNotMatch(report, /kept in resamples": the share|Marginal decisions/);
});
