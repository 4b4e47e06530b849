/** `trace rollout --env toolsandbox` through the real agent loop against a scripted OpenAI-compatible server. */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFile, spawnSync } from "node:child_process";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { toolSandboxDataDirectory } from "../testing/shared-data.js";
import { labelingRequest, reply } from "../testing/analyst-test-support.js";
import { chatBody, sendJson, startFakeChatServer } from "../testing/fake-chat-server.js";
import { TOOLSANDBOX_REFERENCE_CAPABILITIES } from "../analysis/toolsandbox-reference-labeler.js";
import { runToolSandboxRollout, runToolSandboxReport } from "./toolsandbox-rollout.js";

const bin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../bin/trace.js");
const scratch = mkdtempSync(path.join(os.tmpdir(), "trace-toolsandbox-rollout-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

test("an agent that turns cellular off and says so scores 1.0; ToolSandbox's user ends with end_conversation", async () => {
  const server = await startFakeChatServer((request, res) => {
    const tools = (request.body.tools ?? []) as { function: { name: string } }[];
    const messages = request.body.messages as { role: string; content: string | null }[];
    if (tools.some((tool) => tool.function.name === "end_conversation")) {
      sendJson(res, 200, chatBody({ content: null, tool_calls: [{ id: "user_end", type: "function", function: { name: "end_conversation", arguments: "{}" } }] }));
    } else if (!messages.some((message) => message.role === "tool")) {
      sendJson(res, 200, chatBody({ content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "set_cellular_service_status", arguments: '{"on": false}' } }] }));
    } else {
      sendJson(res, 200, chatBody({ content: "Cellular service is turned off" }));
    }
  });
  try {
    const out = path.join(scratch, "run");
    const lines: string[] = [];
    const summary = await runToolSandboxRollout({ dataDir: toolSandboxDataDirectory(), agentUrl: server.baseUrl, agentModel: "m", trials: "1", concurrency: "1", seed: "0", tasks: "cellular_off,cellular_off_10_distraction_tools", runDir: out }, (line) => lines.push(line));
    assert.equal(summary.finished, 2);
    assert.equal(summary.passRate, 1);
    const userRequests = server.received.filter((request) => ((request.body.tools ?? []) as { function: { name: string } }[]).some((tool) => tool.function.name === "end_conversation"));
    assert.equal(userRequests.length, 2);
    const userMessages = userRequests[0]!.body.messages as { role: string; content: string }[];
    assert.equal(userMessages[0]!.role, "system");
    assert.match(userMessages[0]!.content, /You are no longer an assistant/);
    assert.equal(userMessages.at(-1)!.content, "Cellular service is turned off");
    const agentRequest = server.received.find((request) => request.body.tools !== undefined && !((request.body.tools as { function: { name: string } }[]).some((tool) => tool.function.name === "end_conversation")))!;
    assert.deepEqual((agentRequest.body.messages as { role: string; content: string }[]).slice(0, 2).map((message) => message.content), ["Don't make assumptions about what values to plug into functions. Ask for clarification if a user request is ambiguous.", "Turn off cellular"]);
    const report: string[] = [];
    const resultFile = path.join(scratch, "result_summary.json");
    const figures = runToolSandboxReport(out, { out: resultFile }, (line) => report.push(line));
    assert.equal(figures.ALL_CATEGORIES!.perfect, 2);
    assert.equal(figures.TEN_DISTRACTION_TOOLS!.count, 1);
    const written = JSON.parse(readFileSync(resultFile, "utf8")) as { per_scenario_results: { name: string; similarity: number; turn_count: number }[] };
    assert.deepEqual(written.per_scenario_results.map((result) => [result.similarity, result.turn_count]), [[1, 3], [1, 3]]);
    // `trace show` on the same run: its own table, then ToolSandbox's figures per category, the same as the report's.
    const shown = spawnSync(process.execPath, [bin, "show", out, "--json"], { encoding: "utf8" });
    assert.equal(shown.status, 0, shown.stderr);
    const shownLines = shown.stdout.trim().split("\n");
    assert.ok(shownLines.includes("ToolSandbox per category (mean similarity, perfect conversations, turns; as trace toolsandbox report):"), shown.stdout);
    assert.ok(shownLines.some((line) => /^TEN_DISTRACTION_TOOLS +1 +1\.000 +1 +3\.0$/.test(line)), shown.stdout);
    assert.deepEqual((JSON.parse(shownLines.at(-1)!) as { toolsandboxCategories: unknown }).toolsandboxCategories, figures);
    // `trace analyze --labeler reference` on the same run: labels from ToolSandbox's milestones, with the export the
    // rollout recorded in the run's config.json.
    const analyzed = spawnSync(process.execPath, [bin, "analyze", out, "--labeler", "reference"], { encoding: "utf8" });
    assert.equal(analyzed.status, 0, analyzed.stderr);
    assert.match(analyzed.stdout, /reference labeler: 2 trajectories labeled/);
    const runFile = JSON.parse(readFileSync(path.join(out, "analysis", "reference", "run_01.json"), "utf8")) as { labels: Record<string, { present_passed: string[]; na_passed: string[] }> };
    assert.deepEqual(Object.keys(runFile.labels), TOOLSANDBOX_REFERENCE_CAPABILITIES.map((capability) => capability.name));
    assert.equal(runFile.labels.reach_required_world_state!.present_passed.length, 2, "cellular turned off in both");
    assert.equal(runFile.labels.report_results_to_user!.present_passed.length, 2, "and said so");
    assert.equal(runFile.labels.avoid_forbidden_actions!.na_passed.length, 2, "no minefield in either scenario");
    // The LLM analyst on the same dictionary (`--candidates reference`): its labels are compared with the reference's.
    const analyst = await startFakeChatServer((request, res) => {
      const labeling = labelingRequest(request);
      assert.ok(labeling, "no discovery with --candidates");
      reply(res, JSON.stringify({ labels: Object.fromEntries(labeling.keys.map((key) => [key, Object.fromEntries(TOOLSANDBOX_REFERENCE_CAPABILITIES.map((capability) => [capability.name, "PRESENT"]))])) }));
    });
    try {
      // Asynchronously: the scripted analyst answers from this process.
      const compared = await promisify(execFile)(process.execPath, [bin, "analyze", out, "--candidates", "reference", "--analyst-url", analyst.baseUrl, "--analyst-model", "fake", "--runs", "1", "--min-runs", "1", "--quiet"], { encoding: "utf8" });
      assert.match(compared.stdout, /## Agreement with the reference labeler/);
      assert.match(compared.stdout, /\| report_results_to_user \| 2 \| 1\.000 \|/, "both label the two confirmations PRESENT");
    } finally {
      await analyst.close();
    }
  } finally {
    await server.close();
  }
});

test("a declared now that is not a number is refused before anything runs", async () => {
  await assert.rejects(
    runToolSandboxRollout({ dataDir: toolSandboxDataDirectory(), agentUrl: "http://127.0.0.1:9/v1", agentModel: "m", trials: "1", concurrency: "1", seed: "0", now: "tomorrow", runDir: path.join(scratch, "refused") }, () => undefined),
    /--now: "tomorrow" is not a number/,
  );
});
