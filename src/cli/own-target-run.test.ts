/**
 * `trace run` on a user's own target (issue: your own environment): the worked example `examples/ticketing/` as a
 * target module, every stage with the worker's tiny model as the policy and scripted analyst and generator endpoints;
 * then the same service as an MCP server started by the run, through the base rollouts, and exported.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import type { FakeChatServer } from "../testing/fake-chat-server.js";
import { firstContent, repositoryRoot as root, scriptedEndpoints, small, ticketingExample as example, ticketingModuleConfig, trace } from "../testing/ticketing-run-fixture.js";
import { openTrajectoryStore } from "../store/trajectory-store.js";
const scratch = mkdtempSync(path.join(os.tmpdir(), "trace-own-target-"));
const servers: FakeChatServer[] = [];
after(async () => {
  await Promise.all(servers.map((server) => server.close()));
  if (process.env.TRACE_KEEP_SCRATCH === undefined) rmSync(scratch, { recursive: true, force: true });
});

test("trace run on the example target module: every stage; the generator saw the target's tools and policy; evaluation on its test tasks", { timeout: 600_000 }, async () => {
  const { analystServer, generatorServer, endpoints } = await scriptedEndpoints(servers);
  const runDirectory = path.join(scratch, "module-run");
  const config = ticketingModuleConfig(endpoints);
  const configFile = path.join(scratch, "module-config.json");
  writeFileSync(configFile, JSON.stringify(config));
  const result = await trace(["run", configFile, "--run-dir", runDirectory]);
  assert.equal(result.code, 0, result.stdout + result.stderr);
  assert.match(result.stdout, /analysis and training on 3 train tasks, evaluation on 3 test tasks/);
  const store = openTrajectoryStore(path.join(runDirectory, "store.sqlite"));
  const episodes = store.listEpisodes({ environment: "ticketing", status: "finished" });
  store.close();
  assert.deepEqual(episodes.map((episode) => episode.taskId).sort(), ["t01", "t02", "t03"]);
  // The analyst read the task's instructions; the generator was shown the target's tool schemas and policy.
  assert.ok(analystServer.received.some((request) => /^\[task\] You are Alice Park/m.test(firstContent(request))));
  const generation = generatorServer.received.map((request) => JSON.stringify(request.body.messages)).join("\n");
  assert.match(generation, /find_customer/);
  assert.match(generation, /create_ticket/);
  assert.match(generation, /Acme's ticketing desk/);
  const index = JSON.parse(readFileSync(path.join(runDirectory, "environments", "index.json"), "utf8")) as { environments: { capability: string; source: string }[] };
  assert.deepEqual(index.environments.map((entry) => [entry.capability, entry.source]), [["customer_identification", "generated"]]);
  assert.ok(existsSync(path.join(runDirectory, "adapters", "customer_identification", "metrics.jsonl")), "the adapter was trained");
  // GRPO's sampled groups are in the run's store, tagged, and `trace export --training` writes them out.
  const trainingOut = path.join(scratch, "training-episodes.jsonl");
  const exportedTraining = await trace(["export", runDirectory, "--training", "customer_identification", "--format", "jsonl", "--out", trainingOut]);
  assert.equal(exportedTraining.code, 0, exportedTraining.stdout + exportedTraining.stderr);
  const sampled = readFileSync(trainingOut, "utf8").trim().split("\n").map((line) => JSON.parse(line) as { adapter: string; iteration: number; group: number; member: number; environment: string; messages: unknown[] });
  assert.deepEqual(sampled.map((episode) => [episode.adapter, episode.iteration, episode.group, episode.member]), [0, 1].flatMap((group) => [0, 1].map((member) => ["customer_identification", 1, group, member])), "1 iteration × 2 groups × 2 samples");
  assert.ok(sampled.every((episode) => episode.environment === "synthetic-customer_identification" && episode.messages.length > 1));
  const results = JSON.parse(readFileSync(path.join(runDirectory, "eval", "results.json"), "utf8")) as { domains: { domain: string; trace: { total: number }; base: { total: number } }[] };
  assert.deepEqual(results.domains.map((domain) => [domain.domain, domain.trace.total, domain.base.total]), [["ticketing", 3, 3]], "evaluation on the 3 test tasks");
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
