import assert from "node:assert/strict";
import { test } from "node:test";
import type { EpisodeRecord } from "../store/trajectory-store.js";
import { buildRunReport, formatRunReport } from "./run-report.js";

function episode(environment: string, taskId: string, trial: number, success: boolean, extra: Record<string, unknown> | null = null): EpisodeRecord {
  return {
    environment, taskId, trial, status: "finished", seed: null, attempts: 1, startedAt: null, finishedAt: null, updatedAt: "",
    termination: success ? "user_stop" : "max_steps", reward: success ? 1 : 0, success, rewardInfo: null, sourceRewardInfo: null,
    messages: [{ role: "assistant", content: "x", tokens: { promptTokenIds: [1, 2, 3], completionTokenIds: [4], completionLogprobs: [-0.1] } }],
    error: null, metadata: null, extra,
  };
}

test("pass rate, pass^k as τ²-bench defines it, terminations and tokens", () => {
  const episodes = [
    episode("tau2-airline", "0", 0, true, { agent_cost: 0.5 }), episode("tau2-airline", "0", 1, true),
    episode("tau2-airline", "1", 0, true), episode("tau2-airline", "1", 1, false),
    episode("tau2-retail", "0", 0, false),
    { ...episode("tau2-retail", "9", 0, true), status: "running" as const },
  ];
  const report = buildRunReport(episodes);
  const airline = report.environments[0]!;
  assert.deepEqual([airline.tasks, airline.finished, airline.passed, airline.passRate], [2, 4, 3, 0.75]);
  // pass^1 = mean(2/2, 1/2) = 0.75; pass^2 = mean(C(2,2)/C(2,2), C(1,2)/C(2,2)) = 0.5
  assert.deepEqual(airline.passHatK, { 1: 0.75, 2: 0.5 });
  assert.deepEqual(airline.terminations, { user_stop: 3, max_steps: 1 });
  assert.deepEqual([airline.promptTokens, airline.completionTokens, airline.cost], [12, 4, 0.5]);
  assert.equal(report.environments[1]!.cost, null);
  const counted = buildRunReport([{ ...episode("e", "0", 0, true), metadata: { policyUsage: { promptTokens: 100, completionTokens: 7 } } }]);
  assert.deepEqual([counted.environments[0]!.promptTokens, counted.environments[0]!.completionTokens], [100, 7]);
  assert.deepEqual(report.overall, { tasks: 3, finished: 5, passed: 3, passRate: 0.6 });
  assert.match(formatRunReport(report), /^overall +\| +3 \| +5 \| +3 \| +0\.600/m);
});
