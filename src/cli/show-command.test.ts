import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createServer, type AddressInfo } from "node:net";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { loadTau2Domain } from "../envs/tau2/domains.js";
import { createTau2Environment } from "../envs/tau2/environment.js";
import { createChatClient } from "../models/chat-client.js";
import { chatBody, sendJson, startFakeChatServer } from "../testing/fake-chat-server.js";
import { runRollouts } from "../rollout/rollout-runner.js";
import { createScriptedUser } from "../rollout/scripted-user.js";
import { openTrajectoryStore } from "../store/trajectory-store.js";
import { tau2DataDirectory, tau2DomainDirectory } from "../testing/shared-data.js";

const bin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../bin/trace.js");
const scratch = mkdtempSync(path.join(os.tmpdir(), "trace-show-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

test("trace show reports an imported real τ²-bench run: 11 of 30 airline tasks solved", () => {
  const run = path.join(scratch, "run");
  const results = path.join(tau2DataDirectory(), "trajectories", "airline-qwen3-30b-a3b-base.train.json");
  execFileSync("node", [bin, "import", results, "--env", "tau2-airline", "--run-dir", run], { encoding: "utf8" });
  const output = execFileSync("node", [bin, "show", run, "--json"], { encoding: "utf8" });
  const report = JSON.parse(output.trim().split("\n").at(-1) as string) as { overall: { finished: number; passed: number }; environments: { passHatK: Record<string, number>; terminations: Record<string, number> }[] };
  assert.deepEqual([report.overall.finished, report.overall.passed], [30, 11]);
  assert.equal(report.environments[0]!.passHatK["1"], 11 / 30);
  assert.deepEqual(report.environments[0]!.terminations, { user_stop: 29, max_steps: 1 });
  assert.ok(!("toolsandboxCategories" in report) && !output.includes("ToolSandbox per category"), "no ToolSandbox figures for a τ² run");
  const missing = spawnSync("node", [bin, "show", path.join(scratch, "nothing")], { encoding: "utf8" });
  assert.equal(missing.status, 1);
  assert.match(missing.stderr, /is not a run directory/);
});

test("trace show lists terminations per task and why episodes failed: endpoint failures apart, agent_error reasons too", async () => {
  const run = path.join(scratch, "errors");
  const airline = createTau2Environment(loadTau2Domain("airline", tau2DomainDirectory("airline")));
  // Task 0: a policy endpoint nothing listens on; task 1: a policy that answers nothing (agent_error); task 3: a helpful one.
  const listener = createServer();
  await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
  const { port } = listener.address() as AddressInfo;
  await new Promise<void>((resolve) => listener.close(() => resolve()));
  const empty = await startFakeChatServer((_request, res) => sendJson(res, 200, chatBody({ content: "" })));
  const helpful = await startFakeChatServer((_request, res) => sendJson(res, 200, chatBody({ content: "Happy to help." })));
  const clients = new Map([
    ["0", createChatClient({ baseUrl: `http://127.0.0.1:${port}/v1`, model: "m", maxRetries: 0 })],
    ["1", createChatClient({ baseUrl: empty.baseUrl, model: "m", maxRetries: 0 })],
    ["3", createChatClient({ baseUrl: helpful.baseUrl, model: "m", maxRetries: 0 })],
  ]);
  const store = openTrajectoryStore(path.join(run, "store.sqlite"));
  try {
    const summary = await runRollouts({
      environment: airline, tasks: ["0", "1", "3"].map((id) => airline.task(id)), trials: 2, store,
      makePolicy: (episode) => clients.get(episode.task.id)!, makeUser: () => createScriptedUser(["Hi, I need help."]),
    });
    assert.deepEqual([summary.finished, summary.failed], [4, 2]);
  } finally {
    store.close();
    await empty.close();
    await helpful.close();
  }

  const output = execFileSync("node", [bin, "show", run, "--json"], { encoding: "utf8" });
  // The summary table is as before: only finished episodes are graded.
  assert.match(output, /^tau2-airline +\| +2 \| +4 \| +0 \| +0\.000 \| +0\.000 \| .* \| agent_error 2, user_stop 2$/m);
  assert.match(output, /^tau2-airline: 2 failed \(errors, not graded; the next run redoes them\), 0 unfinished$/m);
  assert.match(output, /^tau2-airline +\| 0 +\| +0 \| +0 \| +2 \| +0 \| $/m);
  assert.match(output, /^tau2-airline +\| 1 +\| +2 \| +0 \| +0 \| +0 \| agent_error 2$/m);
  assert.match(output, /^tau2-airline +\| 3 +\| +2 \| +0 \| +0 \| +0 \| user_stop 2$/m);
  assert.match(output, /^tau2-airline \| failed × 2 \| EpisodeEndpointError: the policy's endpoint failed: ChatConnectionError: POST http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions failed after 1 attempt: fetch failed \(connect ECONNREFUSED 127\.0\.0\.1:\d+\) \| 0#0 0#1$/m);
  assert.match(output, /^tau2-airline \| agent_error × 2 \| agent sent an empty message \(no text and no tool calls\) \| 1#0 1#1$/m);

  const report = JSON.parse(output.trim().split("\n").at(-1)!) as {
    overall: { finished: number; failed: number };
    environments: { byTask: { taskId: string; failed: number; terminations: Record<string, number> }[]; errors: { kind: string; count: number; error: string; episodes: string[] }[] }[];
  };
  assert.deepEqual([report.overall.finished, report.overall.failed], [4, 2]);
  const [environment] = report.environments;
  assert.deepEqual(environment!.byTask.map((task) => [task.taskId, task.failed, task.terminations]), [["0", 2, {}], ["1", 0, { agent_error: 2 }], ["3", 0, { user_stop: 2 }]]);
  assert.deepEqual(environment!.errors.map((group) => [group.kind, group.count, group.episodes]), [["failed", 2, ["0#0", "0#1"]], ["agent_error", 2, ["1#0", "1#1"]]]);
  assert.match(environment!.errors[0]!.error, /ECONNREFUSED/);
});
