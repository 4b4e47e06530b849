import assert from "node:assert/strict";
import { test } from "node:test";
import type { RolloutProgress } from "../rollout/rollout-runner.js";
import { remainingTime, rolloutProgressLog } from "./stage-progress.js";

const event = (done: number, total: number): RolloutProgress => ({
  done,
  total,
  finished: done,
  failed: 0,
  skipped: 0,
  running: 1,
  passed: 0,
  passRate: 0,
  elapsedMs: done * 1000,
  etaMs: (total - done) * 1000,
  last: { key: { environment: "e", taskId: String(done), trial: 0 }, status: "finished" },
});

test("rollout progress is logged for the first episode, every tenth of the total and the last", () => {
  const lines: string[] = [];
  const report = rolloutProgressLog((line) => lines.push(line), "tau2-airline");
  for (let done = 1; done <= 30; done += 1) report(event(done, 30));
  assert.deepEqual(lines.map((line) => line.split(" ")[3]), ["1/30", "4/30", "7/30", "10/30", "13/30", "16/30", "19/30", "22/30", "25/30", "28/30", "30/30"]);
  assert.match(lines[0]!, /^ {2}tau2-airline: 1\/30 \(3%\) finished 1 .* eta 00:29$/);
});

test("the time left is the mean step time times the steps left", () => {
  assert.equal(remainingTime(2, 10, 30), "02:00");
  assert.equal(remainingTime(0, 10, 0), "--:--");
});
