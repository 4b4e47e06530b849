import assert from "node:assert/strict";
import { test } from "node:test";
import { runEpisode, type EpisodeResult } from "../../rollout/agent-loop.js";
import type { Message } from "../../spec/message.js";
import type { ModuleInstance } from "../modules/capability-module.js";
import { createModuleEnvironment, nativeModuleRunner, type ModuleEnvironment } from "../modules/index.js";
import { createInstanceUser } from "../../rollout/instance-user.js";
import { DEFAULT_EXPERT_DEFICITS, drawExpertDeficits, NO_EXPERT_DEFICITS, resolveExpertDeficits, type ActiveDeficits, type ExpertDeficits } from "./expert-deficits.js";
import { MINI_CAPABILITY_MODULES, MINI_TARGET_MODULE } from "./mini-capability-modules.js";
import { createScriptedExpert } from "./scripted-expert.js";

const targetEnvironment = (count: number) => createModuleEnvironment({ runner: nativeModuleRunner(MINI_TARGET_MODULE), seeds: Array.from({ length: count }, (_, index) => 1000 + index) });

async function runAll(environment: ModuleEnvironment, deficits: Partial<ExpertDeficits>, seed = 0): Promise<{ instance: ModuleInstance; result: EpisodeResult }[]> {
  const runs = [];
  for (const task of environment.tasks()) {
    const instance = environment.instance(task);
    const policy = createScriptedExpert({ deficits, seed });
    runs.push({ instance, result: await runEpisode({ environment, task, policy, user: createInstanceUser(instance) }) });
  }
  return runs;
}

/** Whether the episode must fail given the deficits that applied and what the instance hides. */
function mustFail(instance: ModuleInstance, active: ActiveDeficits): boolean {
  if (instance.facts.family === "precondition") return active.skipPreconditionCheck && instance.facts.status !== "pending";
  if (instance.facts.family === "payment") return active.wrongPaymentMethod && instance.facts.first_payment_method_id !== instance.facts.payment_method_id;
  return active.stopAfterFirstChange;
}

const success = (result: EpisodeResult) => result.trajectory.reward?.success === true;

/** The conversation as plain text, one line per message (tool calls as `name(arguments)`). */
function conversationText(messages: readonly Message[]): string {
  return messages
    .map((message) => {
      if (message.role === "assistant" && message.tool_calls !== undefined) return message.tool_calls.map((call) => `assistant: ${call.function.name}(${call.function.arguments})`).join("\n");
      return `${message.role}: ${message.content ?? ""}`;
    })
    .join("\n");
}

test("without deficits the expert solves the target and every practice module through the agent loop", async (t) => {
  const runs = await runAll(await targetEnvironment(60), NO_EXPERT_DEFICITS);
  const solved = runs.filter((run) => success(run.result)).length;
  assert.ok(solved >= 60 * 0.99, `solved ${solved}/60`);
  for (const { result } of runs) assert.equal(result.trajectory.termination, "user_stop");
  for (const module of MINI_CAPABILITY_MODULES) {
    const practice = await runAll(await createModuleEnvironment({ runner: nativeModuleRunner(module), seeds: Array.from({ length: 30 }, (_, index) => index) }), NO_EXPERT_DEFICITS);
    assert.equal(practice.filter((run) => success(run.result)).length, 30, module.capability);
  }

  const environment = await targetEnvironment(1);
  const task = environment.tasks()[0]!;
  const scaffold = environment.systemPrompt(task).length + JSON.stringify(environment.tools(task)).length;
  const lengths = runs.map((run) => conversationText(run.result.trajectory.messages).length);
  const mean = lengths.reduce((sum, length) => sum + length, 0) / lengths.length;
  t.diagnostic(`system prompt ${environment.systemPrompt(task).length} chars + tool schemas ${JSON.stringify(environment.tools(task)).length} chars = ${scaffold}`);
  t.diagnostic(`conversation: mean ${mean.toFixed(0)} chars, max ${Math.max(...lengths)} (greeting to ###STOP###); full text mean ${(scaffold + mean).toFixed(0)} chars`);
  t.diagnostic(`example: ${conversationText(runs[0]!.result.trajectory.messages).replaceAll("\n", " | ")}`);
  assert.ok(scaffold < 2000, `scaffold ${scaffold}`);
  assert.ok(mean < 1000, `conversation ${mean}`);
});

test("expert turns: one call per turn with ids call_N, a text reply at the end, usage counted", async () => {
  const environment = await targetEnvironment(12);
  const policy = createScriptedExpert({ deficits: NO_EXPERT_DEFICITS });
  const task = environment.tasks().find((candidate) => environment.instance(candidate).facts.family === "multi_cancel")!;
  const result = await runEpisode({ environment, task, policy, user: createInstanceUser(environment.instance(task)) });
  const assistant = result.trajectory.messages.filter((message) => message.role === "assistant").slice(1);
  const calls = assistant.flatMap((message) => message.tool_calls ?? []);
  assert.deepEqual(calls.map((call) => call.id), calls.map((_, index) => `call_${index}`));
  for (const message of assistant.slice(0, -1)) assert.deepEqual([message.content, message.tool_calls?.length], [null, 1]);
  assert.match(assistant.at(-1)!.content ?? "", /^Orders #W\d\d(, #W\d\d)? and #W\d\d are cancelled\.$/);
  const usage = policy.usage();
  assert.equal(usage.requests, assistant.length);
  assert.ok(usage.promptTokens > 0 && usage.completionTokens > 0);
  assert.equal(usage.cost, null);
});

for (const deficit of ["skipPreconditionCheck", "wrongPaymentMethod", "stopAfterFirstChange"] as const) {
  test(`${deficit} at rate 1 fails exactly where it should and leaves other families alone`, async () => {
    const deficits = { ...NO_EXPERT_DEFICITS, [deficit]: 1 };
    const active = drawExpertDeficits({ deficits, seed: 0, request: "" });
    const runs = await runAll(await targetEnvironment(90), deficits);
    let failures = 0;
    for (const { instance, result } of runs) {
      const expected = !mustFail(instance, active);
      assert.equal(success(result), expected, `${instance.request} ${JSON.stringify(result.trajectory.reward)}`);
      if (!expected) failures += 1;
    }
    assert.ok(failures > 5, `${deficit} made ${failures} failures`);
  });
}

test("default deficits: failures match the per-episode draws and the rate the defaults imply", async (t) => {
  const rates = resolveExpertDeficits();
  assert.deepEqual(rates, DEFAULT_EXPERT_DEFICITS);
  const seed = 11;
  const runs = await runAll(await targetEnvironment(150), {}, seed);
  let failures = 0;
  let expected = 0;
  let variance = 0;
  const byFamily = new Map<string, { runs: number; failures: number; expected: number }>();
  for (const { instance, result } of runs) {
    const active = drawExpertDeficits({ deficits: rates, seed, request: instance.request });
    assert.equal(success(result), !mustFail(instance, active), instance.request);
    const family = instance.facts.family as string;
    const probability =
      family === "precondition"
        ? rates.skipPreconditionCheck * (instance.facts.status !== "pending" ? 1 : 0)
        : family === "payment"
          ? rates.wrongPaymentMethod * (instance.facts.first_payment_method_id !== instance.facts.payment_method_id ? 1 : 0)
          : rates.stopAfterFirstChange;
    const failed = success(result) ? 0 : 1;
    failures += failed;
    expected += probability;
    variance += probability * (1 - probability);
    const entry = byFamily.get(family) ?? { runs: 0, failures: 0, expected: 0 };
    byFamily.set(family, { runs: entry.runs + 1, failures: entry.failures + failed, expected: entry.expected + probability });
  }
  for (const [family, entry] of [...byFamily].sort()) {
    t.diagnostic(`${family}: ${entry.runs} tasks, failure rate ${(entry.failures / entry.runs).toFixed(3)} (expected ${(entry.expected / entry.runs).toFixed(3)})`);
  }
  t.diagnostic(`all: failure rate ${(failures / runs.length).toFixed(3)} (expected ${(expected / runs.length).toFixed(3)} ± ${(Math.sqrt(variance) / runs.length).toFixed(3)})`);
  assert.ok(Math.abs(failures - expected) <= 4 * Math.sqrt(variance), `failures ${failures}, expected ${expected.toFixed(1)} ± ${Math.sqrt(variance).toFixed(1)}`);
});

test("demonstrations are reproducible: the same seed gives the same conversations, another seed other deficits", async () => {
  const environment = await targetEnvironment(40);
  const texts = async (seed: number) => (await runAll(environment, {}, seed)).map((run) => conversationText(run.result.trajectory.messages));
  assert.deepEqual(await texts(4), await texts(4));
  assert.notDeepEqual(await texts(4), await texts(5));
});
