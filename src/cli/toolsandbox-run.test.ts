/**
 * `trace run` with `target.kind: "toolsandbox"` (mechanics): the worker's tiny model as the policy on two root
 * scenarios with ToolSandbox's scripted user, graded by ToolSandbox's similarity; the LLM analyst (scripted) on those
 * trajectories; a scripted generator's module on ToolSandbox's own tools, trained and evaluated; every method of
 * `trace compare` on the ToolSandbox tasks; then `trace toolsandbox report` on the run. One run for every check: each run costs a worker and a tiny checkpoint.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { chatBody, sendJson, startFakeChatServer, type FakeChatServer } from "../testing/fake-chat-server.js";
import { toolSandboxDataDirectory } from "../testing/shared-data.js";
import { openTrajectoryStore } from "../store/trajectory-store.js";
import { SMALL_RUN_SETTINGS } from "../testing/small-run-settings.js";
import { oneCapabilityAnalyst, trace } from "../testing/ticketing-run-fixture.js";
import { loadToolSandboxExport } from "../envs/toolsandbox/load-export.js";
import { COMPARE_METHODS } from "../compare/compare-methods.js";
import type { MethodSeedResult } from "../compare/report/comparison-types.js";
import { hasGradedReward, type EvaluationResults } from "../run/evaluation-results.js";
import { TOOLSANDBOX_REFERENCE_CAPABILITIES } from "../analysis/toolsandbox-reference-labeler.js";

const scratch = mkdtempSync(path.join(os.tmpdir(), "trace-toolsandbox-run-"));
const servers: FakeChatServer[] = [];
after(async () => {
  await Promise.all(servers.map((server) => server.close()));
  rmSync(scratch, { recursive: true, force: true });
});

const analyst = oneCapabilityAnalyst({
  name: "state_dependency_recovery",
  description: "Enables a disabled service before the tool that needs it. LACKING when a call fails on a disabled service and is not retried.",
});

/** The scripted generator's module: ToolSandbox's own send-message and cellular tools (schemas as the export gives them). */
function generatedModule(): string {
  const tools = loadToolSandboxExport(toolSandboxDataDirectory()).tools;
  const schema = (name: string) => tools[name]!.openai_schema_by_augmentation.NONE;
  return `import type { CapabilityModule } from "../sdk/capability-module.js";
const definition: CapabilityModule = {
  capability: "state_dependency_recovery",
  description: "Turn a disabled service back on before the tool that needs it.",
  policy: "If a tool fails because a service is disabled, enable the service and retry.",
  tools: ${JSON.stringify([schema("send_message_with_phone_number"), schema("set_cellular_service_status")])},
  readTools: [],
  generate(seed, sdk) {
    const phone = "+1555000" + String(1000 + seed);
    return { state: { cellular: false, sent: [] }, request: "Send 'hello " + seed + "' to " + phone, followUps: [], solution: [{ name: "set_cellular_service_status", arguments: { on: true } }, { name: "send_message_with_phone_number", arguments: { phone_number: phone, content: "hello " + seed } }], mustSay: [], facts: { phone } };
  },
  runTool(state, name, args) {
    if (name === "set_cellular_service_status") return { output: "None", error: false, state: { ...state, cellular: args.on === true } };
    if (name === "send_message_with_phone_number") {
      if (state.cellular !== true) return { output: "ConnectionError: Cellular service is not enabled", error: true, state };
      return { output: "'m-1'", error: false, state: { ...state, sent: [...(state.sent as unknown[]), args.phone_number] } };
    }
    return { output: "Error: unknown tool " + name, error: true, state };
  },
  verify(input) {
    const sent = input.finalState.sent as string[];
    const success = sent.length === 1 && sent[0] === String(input.instance.facts.phone) && input.finalState.cellular === true;
    return { reward: success ? 1 : input.replies.join("").length % 2 === 1 ? 0.5 : 0, success, breakdown: { sent: success ? 1 : 0 } };
  },
};
export default definition;
`;
}

test("trace run on a toolsandbox target: every stage and every compared method with the worker's tiny model and scripted analyst and generator, then trace toolsandbox report", { timeout: 900_000 }, async () => {
  const analystServer = await startFakeChatServer((request, res) => analyst(request, res));
  const generatorServer = await startFakeChatServer((_request, res) => sendJson(res, 200, chatBody({ content: "```ts\n" + generatedModule() + "```" })));
  servers.push(analystServer, generatorServer);
  const runDirectory = path.join(scratch, "full-run");
  const config = {
    name: "toolsandbox-full",
    ...SMALL_RUN_SETTINGS,
    endpoints: { analyst: { url: analystServer.baseUrl, model: "scripted-analyst" }, generator: { url: generatorServer.baseUrl, model: "scripted-generator" } },
    roles: { analyst: "analyst", generator: "generator" },
    target: { kind: "toolsandbox", dataDirectory: toolSandboxDataDirectory(), tasksPerDomain: 2, maxSteps: 4, maxTokens: 12, concurrency: 2 },
    compare: { seeds: [0], curvePoints: 1, budget: "allowance", sft: { epochs: 1, batchSize: 4, learningRate: 1e-4 } },
  };
  const configFile = path.join(scratch, "full-config.json");
  writeFileSync(configFile, JSON.stringify(config));
  const result = await trace(["run", configFile, "--run-dir", runDirectory]);
  assert.equal(result.code, 0, result.stdout + result.stderr);
  // The base rollouts: two root scenarios, each graded by ToolSandbox's similarity with its categories.
  const store = openTrajectoryStore(path.join(runDirectory, "store.sqlite"));
  const episodes = store.listEpisodes({ environment: "toolsandbox", status: "finished" });
  store.close();
  assert.deepEqual(episodes.map((episode) => episode.taskId).sort(), ["cellular_off", "get_cellular"].sort());
  for (const episode of episodes) {
    const details = episode.rewardInfo?.details as { similarity?: number; categories?: string[] } | undefined;
    assert.equal(typeof details?.similarity, "number", JSON.stringify(episode.rewardInfo));
    assert.ok(details?.categories?.includes("SINGLE_TOOL_CALL"));
  }
  assert.ok(analystServer.received.length > 0, "the analyst read the trajectories");
  assert.ok(existsSync(path.join(runDirectory, "stages", "analyze.json")));
  const generation = generatorServer.received.map((request) => JSON.stringify(request.body.messages)).join("\n");
  assert.match(generation, /send_message_with_phone_number/);
  const index = readFileSync(path.join(runDirectory, "environments", "index.json"), "utf8");
  assert.ok(existsSync(path.join(runDirectory, "adapters", "state_dependency_recovery", "metrics.jsonl")), `the adapter was trained (environments: ${index})`);
  // The evaluation's mean reward is ToolSandbox's similarity, averaged over the stored episodes; the report shows it
  // beside the pass rate (the perfect share) whenever it says more than that.
  const evaluation = JSON.parse(readFileSync(path.join(runDirectory, "eval", "results.json"), "utf8")) as EvaluationResults;
  const evaluationStore = openTrajectoryStore(path.join(runDirectory, "eval", "episodes.sqlite"));
  const similarities = evaluationStore.listEpisodes({ environment: "toolsandbox/base", status: "finished" }).map((episode) => (episode.rewardInfo?.details as { similarity: number }).similarity);
  evaluationStore.close();
  const [domain] = evaluation.domains;
  assert.equal(similarities.length, domain!.base.total);
  assert.ok(Math.abs(domain!.meanReward!.base - similarities.reduce((sum, value) => sum + value, 0) / similarities.length) < 1e-9, JSON.stringify({ domain, similarities }));
  const graded = hasGradedReward(domain!);
  assert.equal(readFileSync(path.join(runDirectory, "eval", "report.md"), "utf8").includes("| toolsandbox | " + domain!.meanReward!.base.toFixed(3)), graded);
  // Every method of the comparison ran on the ToolSandbox tasks, each within its budget, scored by the similarity.
  const comparison = readFileSync(path.join(runDirectory, "compare", "comparison.md"), "utf8");
  assert.match(comparison, /\| toolsandbox \(%\) \|/);
  for (const method of COMPARE_METHODS) {
    const methodResult = JSON.parse(readFileSync(path.join(runDirectory, "compare", "seed-0", method, "result.json"), "utf8")) as MethodSeedResult;
    assert.ok(comparison.includes(`| ${methodResult.label} `), `${method} in comparison.md`);
    const [score] = methodResult.domains;
    assert.equal(score!.domain, "toolsandbox");
    assert.equal(score!.total, 2, `${method} evaluated on both scenarios`);
    assert.ok(methodResult.budget.spent <= methodResult.budget.limit, `${method} within its budget`);
  }
  // ToolSandbox's per-category figures of the run's rollouts.
  const report = await trace(["toolsandbox", "report", runDirectory, "--json"]);
  assert.equal(report.code, 0, report.stderr);
  const figures = JSON.parse(report.stdout.trim().split("\n").at(-1) as string) as Record<string, { count: number }>;
  assert.equal(figures.ALL_CATEGORIES?.count, 2);
  // The evaluation's base and TRACE side by side per category; their mean similarity is eval/results.json's mean reward.
  const sideBySide = await trace(["toolsandbox", "report", runDirectory, "--evaluation", "--json"]);
  assert.equal(sideBySide.code, 0, sideBySide.stderr);
  assert.match(sideBySide.stdout, /^category +n +base sim +TRACE sim +gain +base perf +TRACE perf$/m);
  const both = JSON.parse(sideBySide.stdout.trim().split("\n").at(-1) as string) as Record<"base" | "trace", Record<string, { count: number; meanSimilarity: number }>>;
  assert.deepEqual([both.base.ALL_CATEGORIES?.count, both.trace.ALL_CATEGORIES?.count], [2, 2]);
  assert.ok(Math.abs(both.base.ALL_CATEGORIES!.meanSimilarity - domain!.meanReward!.base) < 1e-9);
  assert.ok(Math.abs(both.trace.ALL_CATEGORIES!.meanSimilarity - domain!.meanReward!.trace) < 1e-9);
  // The evaluate stage wrote the same breakdown into eval/results.json and eval/report.md.
  assert.deepEqual(evaluation.toolsandboxCategories, both);
  assert.match(readFileSync(path.join(runDirectory, "eval", "report.md"), "utf8"), /ToolSandbox per category:\n\n```\ncategory +n +base sim/);
  const refused = await trace(["toolsandbox", "report", runDirectory, "--evaluation", "--out", path.join(scratch, "summary.json")]);
  assert.notEqual(refused.code, 0);
  assert.match(refused.stderr, /--out writes one agent's result_summary\.json: leave it out with --evaluation/);
});

test("trace run --until analyze on a toolsandbox target without an analyst: the reference labeler reads ToolSandbox's milestone evaluation", { timeout: 300_000 }, async () => {
  const runDirectory = path.join(scratch, "reference-run");
  const { analysis: _analysis, environments: _environments, ...settings } = SMALL_RUN_SETTINGS;
  const config = { name: "toolsandbox-reference", ...settings, target: { kind: "toolsandbox", dataDirectory: toolSandboxDataDirectory(), tasksPerDomain: 2, maxSteps: 4, maxTokens: 12, concurrency: 2 } };
  const configFile = path.join(scratch, "reference-config.json");
  writeFileSync(configFile, JSON.stringify(config));
  const result = await trace(["run", configFile, "--run-dir", runDirectory, "--until", "analyze"]);
  assert.equal(result.code, 0, result.stdout + result.stderr);
  assert.match(result.stdout, /\[3\/\d+ analyze\] done in [\d.]+ s: 2 trajectories labeled/);
  const runFile = JSON.parse(readFileSync(path.join(runDirectory, "analysis", "reference", "run_01.json"), "utf8")) as { totals: { total_failed: number; total_passed: number }; labels: Record<string, Record<string, string[]>> };
  assert.deepEqual(Object.keys(runFile.labels), TOOLSANDBOX_REFERENCE_CAPABILITIES.map((capability) => capability.name));
  // Each labeled conversation is in exactly one of the six lists of every capability, and a failed one is LACKING somewhere.
  for (const lists of Object.values(runFile.labels)) assert.equal(Object.values(lists).flat().length, runFile.totals.total_failed + runFile.totals.total_passed);
  const failed = Object.values(runFile.labels).flatMap((lists) => lists.lacking_failed!);
  assert.equal(new Set(failed).size, runFile.totals.total_failed);
  assert.ok(existsSync(path.join(runDirectory, "analysis", "reference", "capability_scores.json")));
});
