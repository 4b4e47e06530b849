/**
 * `trace run` on a user's own target (issue: your own environment): the worked example `examples/ticketing/` as an MCP
 * server started by the run, through the base rollouts, and exported. The same example as a target module through
 * every stage is checked on the run that src/dashboard/dashboard-browser.test.ts follows (one run for both: each costs
 * a worker, a tiny checkpoint and every stage).
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import type { FakeChatServer } from "../testing/fake-chat-server.js";
import { repositoryRoot as root, scriptedEndpoints, small, ticketingExample as example, trace } from "../testing/ticketing-run-fixture.js";
const scratch = mkdtempSync(path.join(os.tmpdir(), "trace-own-target-"));
const servers: FakeChatServer[] = [];
after(async () => {
  await Promise.all(servers.map((server) => server.close()));
  if (process.env.TRACE_KEEP_SCRATCH === undefined) rmSync(scratch, { recursive: true, force: true });
});

test("trace run --until rollout on the example as an MCP server the run starts (reset tool between episodes), then trace export", { timeout: 300_000 }, async () => {
  const { endpoints } = await scriptedEndpoints(servers);
  const runDirectory = path.join(scratch, "mcp-run");
  const config = {
    name: "ticketing-mcp",
    ...small,
    endpoints,
    roles: { analyst: "analyst", generator: "generator" },
    target: {
      kind: "mcp",
      mcp: { name: "ticketing", command: process.execPath, args: ["--import", "tsx", path.join(example, "mcp-server.ts")], cwd: root, tasksFile: path.join(example, "tasks.json"), policyFile: path.join(example, "policy.md"), state: { resetTool: "reset" }, hiddenTools: ["export_state"], grader: { module: path.join(example, "mcp-grader.ts") } },
      tasksPerDomain: 4,
      maxSteps: 4,
      maxTokens: 12,
      concurrency: 2,
    },
  };
  const configFile = path.join(scratch, "mcp-config.json");
  writeFileSync(configFile, JSON.stringify(config));
  const result = await trace(["run", configFile, "--run-dir", runDirectory, "--until", "rollout"]);
  assert.equal(result.code, 0, result.stdout + result.stderr);
  const out = path.join(scratch, "mcp-episodes.jsonl");
  const exported = await trace(["export", runDirectory, "--env", "ticketing", "--format", "jsonl", "--out", out]);
  assert.equal(exported.code, 0, exported.stdout + exported.stderr);
  const lines = readFileSync(out, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as { taskId: string; status: string; termination: string; rewardInfo: { reward: number; breakdown: Record<string, number>; details?: { differingTickets?: string[] } } | null });
  assert.deepEqual(lines.map((line) => line.taskId).sort(), ["t01", "t02", "t03", "t04"]);
  for (const line of lines) {
    assert.equal(line.status, "finished");
    // Graded on the server's final state (export_state) when the episode ended with a stop; otherwise 0 ungraded.
    if (line.termination === "agent_stop" || line.termination === "user_stop") assert.ok(Array.isArray(line.rewardInfo?.details?.differingTickets), JSON.stringify(line.rewardInfo));
    else assert.equal(line.rewardInfo?.reward, 0);
  }
  assert.ok(lines.some((line) => line.termination === "user_stop"), "the scripted user ends some episodes, which are graded by the server's state");
});
