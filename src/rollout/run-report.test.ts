import assert from "node:assert/strict";
import { test } from "node:test";
import type { EpisodeRecord } from "../store/trajectory-store.js";
import { buildRunReport, formatRunReport, shortenError } from "./run-report.js";

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
  assert.deepEqual(report.overall, { tasks: 3, finished: 5, passed: 3, passRate: 0.6, failed: 0, unfinished: 1 });
  assert.match(formatRunReport(report), /^overall +\| +3 \| +5 \| +3 \| +0\.600/m);
});

test("failed and unfinished episodes are counted per task apart from the finished ones, with their errors grouped", () => {
  const endpointError = "EpisodeEndpointError: the policy's endpoint failed: ChatConnectionError: POST http://127.0.0.1:9/v1/chat/completions failed after 4 attempts: fetch failed (connect ECONNREFUSED 127.0.0.1:9)\n    at runEpisode (file:///x/agent-loop.js:1:1)\n    at async runOne (file:///x/rollout-runner.js:1:1)";
  const failed = (taskId: string, trial: number, error: string): EpisodeRecord => ({ ...episode("tau2-airline", taskId, trial, false), status: "failed", termination: null, reward: null, success: null, messages: null, error });
  const episodes: EpisodeRecord[] = [
    episode("tau2-airline", "10", 0, true),
    failed("10", 1, endpointError),
    failed("2", 0, endpointError),
    { ...episode("tau2-airline", "2", 1, false), termination: "agent_error", metadata: { error: "agent sent an empty message (no text and no tool calls)" } },
    { ...episode("tau2-airline", "3", 0, false), status: "running", termination: null, reward: null, success: null },
    failed("3", 1, "Error: grading blew up"),
    { ...failed("only-failed", 0, endpointError), environment: "tau2-retail" },
  ];
  const report = buildRunReport(episodes);
  const [airline, retail] = report.environments;
  assert.deepEqual([airline!.finished, airline!.passed, airline!.passRate, airline!.failed, airline!.unfinished, airline!.tasks], [2, 1, 0.5, 3, 1, 2]);
  assert.deepEqual(airline!.terminations, { user_stop: 1, agent_error: 1 });
  assert.deepEqual(airline!.byTask, [
    { taskId: "2", finished: 1, passed: 0, failed: 1, unfinished: 0, terminations: { agent_error: 1 } },
    { taskId: "3", finished: 0, passed: 0, failed: 1, unfinished: 1, terminations: {} },
    { taskId: "10", finished: 1, passed: 1, failed: 1, unfinished: 0, terminations: { user_stop: 1 } },
  ]);
  const shortened = shortenError(endpointError);
  assert.equal(shortened, "EpisodeEndpointError: the policy's endpoint failed: ChatConnectionError: POST http://127.0.0.1:9/v1/chat/completions failed after 4 attempts: fetch failed (connect ECONNREFUSED 127.0.0.1:9)");
  assert.deepEqual(airline!.errors, [
    { kind: "failed", error: shortened, count: 2, episodes: ["10#1", "2#0"] },
    { kind: "failed", error: "Error: grading blew up", count: 1, episodes: ["3#1"] },
    { kind: "agent_error", error: "agent sent an empty message (no text and no tool calls)", count: 1, episodes: ["2#1"] },
  ]);
  // An environment with only failed episodes is listed, with nothing graded.
  assert.deepEqual([retail!.environment, retail!.finished, retail!.passRate, retail!.failed, retail!.passHatK], ["tau2-retail", 0, 0, 1, {}]);
  assert.deepEqual(report.overall, { tasks: 2, finished: 2, passed: 1, passRate: 0.5, failed: 4, unfinished: 1 });

  const text = formatRunReport(report);
  assert.match(text, /^overall +\| +2 \| +2 \| +1 \| +0\.500/m);
  assert.match(text, /^tau2-airline: 3 failed \(errors, not graded; the next run redoes them\), 1 unfinished$/m);
  assert.match(text, /^environment +\| task +\| finished \| passed \| failed \| unfinished \| terminations$/m);
  assert.match(text, /^tau2-airline +\| 3 +\| +0 \| +0 \| +1 \| +1 \| $/m);
  assert.match(text, /^tau2-airline +\| 10 +\| +1 \| +1 \| +1 \| +0 \| user_stop 1$/m);
  assert.match(text, /^tau2-airline \| failed × 2 \| EpisodeEndpointError: the policy's endpoint failed: ChatConnectionError: POST http:\/\/127\.0\.0\.1:9.* \| 10#1 2#0$/m);
  assert.match(text, /^tau2-airline \| agent_error × 1 \| agent sent an empty message \(no text and no tool calls\) \| 2#1$/m);
  assert.match(text, /^tau2-retail \| failed × 1 \| .* \| only-failed#0$/m);
  assert.equal(shortenError("x".repeat(500)).length, 240);
  assert.match(formatRunReport(buildRunReport([episode("e", "0", 0, true)])), /^errors: none$/m);
});
