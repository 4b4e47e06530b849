/** `target.kind: "toolsandbox"`: the run's target loads ToolSandbox's root scenarios, and an episode through the agent loop is graded by ToolSandbox's similarity. */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import type { ChatClient } from "../models/chat-client.js";
import { runEpisode } from "../rollout/agent-loop.js";
import type { AssistantMessage } from "../spec/message.js";
import { toolSandboxDataDirectory } from "../testing/shared-data.js";
import { parsePipelineConfig } from "./pipeline-config.js";
import { loadTargetDomains } from "./target-tasks.js";

const scratch = mkdtempSync(path.join(os.tmpdir(), "trace-toolsandbox-target-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

function scriptedPolicy(turns: AssistantMessage[]): ChatClient {
  let next = 0;
  return {
    complete() {
      const message = turns[Math.min(next, turns.length - 1)] as AssistantMessage;
      next += 1;
      return Promise.resolve({ message, usage: { promptTokens: 1, completionTokens: 1 }, finishReason: "stop" });
    },
  } as unknown as ChatClient;
}

test("a toolsandbox target: the 129 root scenarios, its scripted user, ToolSandbox's similarity as the reward", async () => {
  const config = parsePipelineConfig(
    { name: "toolsandbox", model: { path: path.join(scratch, "model") }, target: { kind: "toolsandbox", dataDirectory: toolSandboxDataDirectory() }, analysis: { labeler: "llm" }, endpoints: { a: { url: "http://127.0.0.1:9/v1", model: "m" } }, roles: { analyst: "a" } },
    "test",
    { runDirectory: path.join(scratch, "run") },
  );
  const [domain] = await loadTargetDomains(config);
  assert.equal(domain!.domain, "toolsandbox");
  assert.equal(domain!.tasks.length, 129);
  const task = domain!.environment.task("cellular_off");
  assert.equal(domain!.request(task), "Turn off cellular");
  const policy = scriptedPolicy([
    { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "set_cellular_service_status", arguments: '{"on": false}' } }] },
    { role: "assistant", content: "Cellular service is turned off" },
  ]);
  const episode = await runEpisode({ environment: domain!.environment, task, policy, user: domain!.makeUser(task) });
  assert.equal(episode.trajectory.termination, "user_stop");
  assert.equal(episode.trajectory.reward?.reward, 1);
  const lazy = await runEpisode({ environment: domain!.environment, task, policy: scriptedPolicy([{ role: "assistant", content: "Sure." }]), user: domain!.makeUser(task) });
  assert.equal(lazy.trajectory.reward?.reward, 0);
  assert.throws(() => parsePipelineConfig({ name: "x", model: { path: "m" }, target: { kind: "toolsandbox" }, analysis: { labeler: "llm" }, endpoints: { a: { url: "http://127.0.0.1:9/v1", model: "m" } }, roles: { analyst: "a" } }, "test"), /dataDirectory/);
  // Without an analyst: the reference labeler reads ToolSandbox's milestone evaluation (the default labeler).
  const offline = parsePipelineConfig({ name: "x", model: { path: "m" }, target: { kind: "toolsandbox", dataDirectory: toolSandboxDataDirectory() } }, "test");
  assert.equal(offline.analysis.labeler, "reference");
});
