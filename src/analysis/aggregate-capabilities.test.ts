import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import { DataFileError } from "../envs/core/data-file-error.js";
import { aggregateCapabilities, populationStandardDeviation, selectedCapabilities } from "./aggregate-capabilities.js";
import { aggregateDirectory, readScoresFile } from "./analysis-directory.js";
import { keepStability } from "./keep-stability.js";
import type { CapabilityLabelLists, RunFile } from "./run-file.js";

const scratch = mkdtempSync(path.join(os.tmpdir(), "trace-aggregate-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

function lists(partial: Partial<CapabilityLabelLists>): CapabilityLabelLists {
  return { lacking_failed: [], present_failed: [], na_failed: [], lacking_passed: [], present_passed: [], na_passed: [], ...partial };
}

// Failed tasks t:1 … t:4 (and t:10 in run 3), passed tasks p:1 … p:3. Numbers below are worked out by hand.
const RUNS: RunFile[] = [
  {
    attempt: 1,
    totals: { total_failed: 4, total_passed: 2 },
    labels: {
      // Cov 2/4; ER− 2/3; ER+ 0/1; Δ 2/3 → passes.
      alpha: lists({ lacking_failed: ["t:1", "t:2"], present_failed: ["t:3"], na_failed: ["t:4"], present_passed: ["p:1"], na_passed: ["p:2"] }),
      // Cov 1/4; ER− 1/4; ER+ 1/2; Δ −1/4 → fails.
      beta: lists({ lacking_failed: ["t:1"], present_failed: ["t:2", "t:3", "t:4"], lacking_passed: ["p:1"], present_passed: ["p:2"] }),
      // Everything NA: every denominator of ER is 0, so Cov 0, ER− 0, ER+ 0, Δ 0.
      gamma: lists({ na_failed: ["t:1", "t:2", "t:3", "t:4"], na_passed: ["p:1", "p:2"] }),
    },
  },
  {
    attempt: 2,
    totals: { total_failed: 4, total_passed: 2 },
    labels: {
      // Cov 1/4; ER− 1/2; ER+ 1/2; Δ 0 → fails.
      alpha: lists({ lacking_failed: ["t:1"], present_failed: ["t:2"], na_failed: ["t:3", "t:4"], lacking_passed: ["p:1"], present_passed: ["p:2"] }),
      // Cov 4/4; ER− 1; ER+ 0; Δ 1 → passes. (gamma is not labeled in this run.)
      beta: lists({ lacking_failed: ["t:1", "t:2", "t:3", "t:4"], present_passed: ["p:1", "p:2"] }),
    },
  },
  {
    attempt: 3,
    totals: { total_failed: 5, total_passed: 3 },
    labels: {
      // Cov 2/5; ER− 2/4; ER+ 0/3; Δ 1/2 → passes.
      alpha: lists({ lacking_failed: ["t:1", "t:10"], present_failed: ["t:2", "t:3"], na_failed: ["t:4"], present_passed: ["p:1", "p:2", "p:3"] }),
      // Cov 1/5; ER− 1/5; ER+ 0/1; Δ exactly 0.2 → passes (the thresholds are inclusive).
      beta: lists({ lacking_failed: ["t:10"], present_failed: ["t:1", "t:2", "t:3", "t:4"], present_passed: ["p:1"], na_passed: ["p:2", "p:3"] }),
      // Cov 1/5; ER− 1/1; ER+ 1/1; Δ 0 → fails.
      gamma: lists({ lacking_failed: ["t:1"], na_failed: ["t:2", "t:3", "t:4", "t:10"], lacking_passed: ["p:1"], na_passed: ["p:2", "p:3"] }),
    },
  },
];

const THRESHOLDS = { coverage: 0.1, gap: 0.2, minRuns: 2 };

function close(actual: number, expected: number, what: string): void {
  assert.ok(Math.abs(actual - expected) < 1e-12, `${what}: ${actual} ≠ ${expected}`);
}

describe("aggregateCapabilities", () => {
  test("computes mean and population sd of Cov and Δ, passing runs, consistency and the ranking by mean Δ", () => {
    const result = aggregateCapabilities(RUNS, { thresholds: THRESHOLDS, descriptions: new Map([["alpha", "Alpha skill."]]) });
    assert.deepEqual(result.capabilities.map((score) => [score.skill, score.status]), [["alpha", "kept"], ["beta", "kept"], ["gamma", "rejected"]]);
    const [alpha, beta, gamma] = result.capabilities;
    assert.ok(alpha && beta && gamma);

    const alphaCov = (0.5 + 0.25 + 0.4) / 3;
    close(alpha.mean_cov, alphaCov, "alpha mean_cov");
    close(alpha.std_cov, Math.sqrt(((0.5 - alphaCov) ** 2 + (0.25 - alphaCov) ** 2 + (0.4 - alphaCov) ** 2) / 3), "alpha std_cov");
    const alphaDelta = (2 / 3 + 0 + 0.5) / 3; // 7/18
    close(alpha.mean_delta, alphaDelta, "alpha mean_delta");
    close(alpha.std_delta, Math.sqrt(((2 / 3 - alphaDelta) ** 2 + (0 - alphaDelta) ** 2 + (0.5 - alphaDelta) ** 2) / 3), "alpha std_delta");
    assert.equal(alpha.n_runs_passed, 2);
    assert.equal(alpha.n_runs_total, 3);
    assert.equal(alpha.passes_consistency, true);
    assert.equal(alpha.description, "Alpha skill.");
    // The union over runs of failed tasks labeled LACKING, sorted as strings (so t:10 before t:2).
    assert.deepEqual(alpha.example_failed_cases, ["t:1", "t:10", "t:2"]);
    assert.deepEqual(alpha.per_run.map((run) => run?.passed), [true, false, true]);

    close(beta.mean_cov, (0.25 + 1 + 0.2) / 3, "beta mean_cov");
    close(beta.mean_delta, (-0.25 + 1 + 0.2) / 3, "beta mean_delta");
    assert.equal(beta.n_runs_passed, 2);
    assert.equal(beta.description, "");

    // gamma is labeled in runs 1 and 3 only: its means are over those two runs, n_runs_total counts all three.
    close(gamma.mean_cov, (0 + 0.2) / 2, "gamma mean_cov");
    close(gamma.std_cov, 0.1, "gamma std_cov");
    assert.equal(gamma.mean_delta, 0);
    assert.equal(gamma.std_delta, 0);
    assert.equal(gamma.n_runs_passed, 0);
    assert.equal(gamma.n_runs_total, 3);
    assert.equal(gamma.passes_consistency, false);
    assert.equal(gamma.per_run[1], null);
    assert.deepEqual(gamma.per_run[0], { attempt: 1, cov: 0, delta: 0, er_minus: 0, er_plus: 0, passed: false });

    const selected = selectedCapabilities(result);
    assert.deepEqual(selected.map((row) => row.skill), ["alpha", "beta"]);
    assert.deepEqual(Object.keys(selected[0] ?? {}), [
      "skill", "description", "mean_cov", "std_cov", "mean_delta", "std_delta", "n_runs_passed", "n_runs_total", "passes_consistency", "example_failed_cases", "status",
    ]);
  });

  test("a stricter consistency requirement keeps nothing; a zero-failure run has coverage 0", () => {
    assert.deepEqual(selectedCapabilities(aggregateCapabilities(RUNS, { thresholds: { ...THRESHOLDS, minRuns: 3 } })), []);
    const noFailures: RunFile = { attempt: 1, totals: { total_failed: 0, total_passed: 1 }, labels: { alpha: lists({ present_passed: ["p:1"] }) } };
    const [score] = aggregateCapabilities([noFailures], { thresholds: { ...THRESHOLDS, minRuns: 1 } }).capabilities;
    assert.equal(score?.mean_cov, 0);
    assert.equal(score?.status, "rejected");
  });

  test("lists at most 8 example failed cases", () => {
    const keys = Array.from({ length: 12 }, (_, index) => `airline:${index}`);
    const run: RunFile = { attempt: 1, totals: { total_failed: 12, total_passed: 0 }, labels: { alpha: lists({ lacking_failed: keys }) } };
    const [score] = aggregateCapabilities([run]).capabilities;
    assert.deepEqual(score?.example_failed_cases, ["airline:0", "airline:1", "airline:10", "airline:11", "airline:2", "airline:3", "airline:4", "airline:5"]);
  });

  test("population standard deviation divides by n", () => {
    close(populationStandardDeviation([1, 3]), 1, "sd of 1, 3");
    assert.equal(populationStandardDeviation([]), 0);
  });
});

describe("aggregateDirectory", () => {
  test("reads run_*.json and candidate descriptions, writes selected_capabilities.json and capability_scores.json", () => {
    const directory = path.join(scratch, "runs");
    mkdirSync(directory);
    RUNS.forEach((run, index) => writeFileSync(path.join(directory, `run_0${index + 1}.json`), JSON.stringify(run)));
    writeFileSync(path.join(directory, "candidate_capabilities.json"), JSON.stringify({ candidates: [{ name: "beta", description: "Beta skill." }] }));
    writeFileSync(path.join(directory, "notes.json"), "{}");
    const out = path.join(scratch, "out", "selected_capabilities.json");
    aggregateDirectory({ runsDirectory: directory, out, thresholds: THRESHOLDS, labeler: "test" });
    const selected = JSON.parse(readFileSync(out, "utf8")) as { skill: string; description: string }[];
    assert.deepEqual(selected.map((row) => [row.skill, row.description]), [["alpha", ""], ["beta", "Beta skill."]]);
    const scores = readScoresFile(path.dirname(out));
    assert.deepEqual(scores.run_files, ["run_01.json", "run_02.json", "run_03.json"]);
    assert.equal(scores.capabilities.length, 3);
    assert.equal(scores.labeler, "test");
    // Every capability's share of resamples in which it is kept is in the scores, equal to keepStability's, and not in
    // the selection (the reference format).
    const shares = keepStability(RUNS, THRESHOLDS);
    for (const score of scores.capabilities) assert.equal(score.kept_in_resamples, shares.get(score.skill));
    assert.ok(selected.every((row) => !("kept_in_resamples" in row)));
  });

  test("a run file of unknown shape is refused with the file and the field", () => {
    const cases: [string, string, RegExp][] = [
      ["missing-totals", JSON.stringify({ attempt: 1, labels: {} }), /run_01\.json: totals: /],
      ["bad-list", JSON.stringify({ ...RUNS[0], labels: { alpha: { ...lists({}), lacking_failed: "t:1" } } }), /run_01\.json: labels\.alpha\.lacking_failed: /],
      ["missing-list", JSON.stringify({ ...RUNS[0], labels: { alpha: { lacking_faild: [] } } }), /labels\.alpha\.lacking_failed: .*expected array/],
      ["negative-total", JSON.stringify({ ...RUNS[0], totals: { total_failed: -1, total_passed: 0 } }), /totals\.total_failed: /],
      ["not-json", "{", /run_01\.json: not valid JSON/],
    ];
    for (const [name, text, pattern] of cases) {
      const directory = path.join(scratch, name);
      mkdirSync(directory);
      writeFileSync(path.join(directory, "run_01.json"), text);
      assert.throws(
        () => aggregateDirectory({ runsDirectory: directory, thresholds: THRESHOLDS }),
        (error: unknown) => DataFileError.isInstance(error) && error.file === path.join(directory, "run_01.json") && pattern.test(error.message),
        name,
      );
    }
    const empty = path.join(scratch, "empty");
    mkdirSync(empty);
    assert.throws(() => aggregateDirectory({ runsDirectory: empty, thresholds: THRESHOLDS }), /no run_\*\.json files/);
  });
});
