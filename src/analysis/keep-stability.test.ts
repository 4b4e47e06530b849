import assert from "node:assert/strict";
import { test } from "node:test";
import { isMarginal, keepStability } from "./keep-stability.js";
import { taskOfKey } from "./trajectory-key.js";
import type { CapabilityLabelLists, RunFile } from "./run-file.js";

function lists(partial: Partial<CapabilityLabelLists>): CapabilityLabelLists {
  return { lacking_failed: [], present_failed: [], na_failed: [], lacking_passed: [], present_passed: [], na_passed: [], ...partial };
}

const keys = (prefix: string, count: number) => Array.from({ length: count }, (_, index) => `${prefix}:${index}`);

/**
 * 40 failed tasks and 20 passed ones. `firm`: lacking in 30 failed tasks, never when passed (Cov 0.75, Δ 0.75).
 * `never`: present everywhere (Cov 0, Δ 0). `edge`: lacking in 8 failed tasks of 40 and present in the other 32
 * (Cov 0.2, Δ 0.2): exactly at both thresholds, so about half the resamples fall below one of them.
 */
function run(attempt: number): RunFile {
  const failed = keys("f", 40);
  const passed = keys("p", 20);
  return {
    attempt,
    totals: { total_failed: 40, total_passed: 20 },
    labels: {
      firm: lists({ lacking_failed: failed.slice(0, 30), present_failed: failed.slice(30), present_passed: passed }),
      never: lists({ present_failed: failed, present_passed: passed }),
      edge: lists({ lacking_failed: failed.slice(0, 8), present_failed: failed.slice(8), na_passed: passed }),
    },
  };
}

const THRESHOLDS = { coverage: 0.2, gap: 0.2, minRuns: 1 };

test("a capability far past the thresholds is kept in every resample, one far below in none, one on the edge in between", () => {
  const shares = keepStability([run(1)], THRESHOLDS, { resamples: 400 });
  assert.equal(shares.get("firm"), 1);
  assert.equal(shares.get("never"), 0);
  const edge = shares.get("edge")!;
  assert.ok(edge > 0.2 && edge < 0.8, `edge kept in ${edge}`);
  assert.ok(isMarginal(edge));
  assert.ok(!isMarginal(1) && !isMarginal(0) && !isMarginal(0.05) && !isMarginal(0.95));
});

test("the same runs and seed give the same shares; another seed resamples differently", () => {
  const first = keepStability([run(1)], THRESHOLDS, { resamples: 200, seed: 7 });
  assert.deepEqual(keepStability([run(1)], THRESHOLDS, { resamples: 200, seed: 7 }), first);
  assert.notEqual(keepStability([run(1)], THRESHOLDS, { resamples: 200, seed: 8 }).get("edge"), first.get("edge"));
});

test("with several labeling runs a resample keeps a capability only when it passes in minRuns of them", () => {
  // In the second run `edge` is lacking in none of the failed tasks: it passes there in no resample.
  const second = run(2);
  second.labels["edge"] = lists({ present_failed: keys("f", 40), na_passed: keys("p", 20) });
  const one = keepStability([run(1), second], { ...THRESHOLDS, minRuns: 1 }, { resamples: 300 }).get("edge")!;
  const both = keepStability([run(1), second], { ...THRESHOLDS, minRuns: 2 }, { resamples: 300 }).get("edge")!;
  assert.ok(one > 0.2, `kept in ${one} with one run required`);
  assert.equal(both, 0);
});

test("a task's trials are drawn together", () => {
  assert.equal(taskOfKey("mini-service:seed-12#3"), "mini-service:seed-12");
  assert.equal(taskOfKey("airline:12"), "airline:12");
  assert.equal(taskOfKey("retail:a#b"), "retail:a#b");
  // Ten tasks of four trials each, all failed; `rare` is lacking in every trial of one task. A resample draws the
  // task's four trials or none, so Cov is a multiple of 4/40 (never 1/40): with Cov ≥ 0.1 kept whenever drawn.
  const trials = (task: number) => [0, 1, 2, 3].map((trial) => (trial === 0 ? `t:${task}` : `t:${task}#${trial}`));
  const failed = Array.from({ length: 10 }, (_, task) => trials(task)).flat();
  const runFile: RunFile = {
    attempt: 1,
    totals: { total_failed: 40, total_passed: 0 },
    labels: { rare: lists({ lacking_failed: trials(0), present_failed: failed.filter((key) => !key.startsWith("t:0")) }) },
  };
  const share = keepStability([runFile], { coverage: 0.1, gap: 0.05, minRuns: 1 }, { resamples: 2000 }).get("rare")!;
  // P(task 0 drawn at least once in 10 draws) = 1 − 0.9^10 ≈ 0.651.
  assert.ok(Math.abs(share - (1 - 0.9 ** 10)) < 0.04, `kept in ${share}`);
});

test("with fewer tasks than were analysed, each resample draws that many distinct tasks", () => {
  // Ten tasks of two trials, all failed; `rare` is lacking in both trials of task 0 only and passes whenever task 0 is
  // drawn. Five distinct tasks of ten include task 0 with probability 1/2; all ten always do.
  const trials = (task: number) => [`t:${task}`, `t:${task}#1`];
  const failed = Array.from({ length: 10 }, (_, task) => trials(task)).flat();
  const runFile: RunFile = {
    attempt: 1,
    totals: { total_failed: 20, total_passed: 0 },
    labels: { rare: lists({ lacking_failed: trials(0), present_failed: failed.slice(2) }) },
  };
  const thresholds = { coverage: 0.05, gap: 0.05, minRuns: 1 };
  const half = keepStability([runFile], thresholds, { resamples: 2000, tasks: 5 }).get("rare")!;
  assert.ok(Math.abs(half - 0.5) < 0.04, `kept in ${half}`);
  assert.equal(keepStability([runFile], thresholds, { resamples: 50, tasks: 10 }).get("rare"), 1, "all ten tasks: the point decision every time");
  assert.equal(keepStability([runFile], thresholds, { resamples: 50, tasks: 1 }).get("rare")! < 0.5, true);
  assert.throws(() => keepStability([runFile], thresholds, { tasks: 11 }), /tasks must be an integer from 1 to the 10 analysed, got 11/);
});

test("a bad number of resamples is refused", () => {
  assert.throws(() => keepStability([run(1)], THRESHOLDS, { resamples: 0 }), /resamples must be a positive integer, got 0/);
});
