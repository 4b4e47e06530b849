import assert from "node:assert/strict";
import { after, test } from "node:test";
import { createChatClient } from "../../models/chat-client.js";
import { chatBody, sendJson, startFakeChatServer } from "../../testing/fake-chat-server.js";
import { runEpisode } from "../../rollout/agent-loop.js";
import type { Message } from "../../spec/message.js";
import { CAPABILITY_ENVIRONMENTS } from "../../synthesis/environments/index.js";
import preconditionVerification from "../../synthesis/environments/precondition-verification.js";
import type { CapabilityModule, ModuleInstance } from "./capability-module.js";
import { checkDeterminism, createModuleEnvironment, nativeModuleRunner, playDoNothing, playSolution, solutionReply, UnknownSeedTaskError } from "./index.js";
import { createInstanceUser } from "../../rollout/instance-user.js";

const closers: (() => Promise<void>)[] = [];
after(async () => {
  await Promise.all(closers.map((close) => close()));
});

/** A fake policy server that replays the instance's solution one call per turn, then answers with the solution's reply. */
async function solutionPolicy(instance: ModuleInstance) {
  const server = await startFakeChatServer((request, res) => {
    const messages = request.body.messages as Message[];
    const made = messages.filter((message) => message.role === "assistant").flatMap((message) => message.tool_calls ?? []).length;
    const next = instance.solution[made];
    if (next === undefined) sendJson(res, 200, chatBody({ content: solutionReply(instance) }));
    else sendJson(res, 200, chatBody({ content: null, tool_calls: [{ id: `call_${made}`, type: "function", function: { name: next.name, arguments: JSON.stringify(next.arguments) } }] }));
  });
  closers.push(() => server.close());
  return createChatClient({ baseUrl: server.baseUrl, model: "test-model", maxRetries: 0, retryBaseMs: 1 });
}

for (const { module } of CAPABILITY_ENVIRONMENTS) {
  test(`${module.capability}: an episode through the agent loop replaying the solution gets reward 1`, async () => {
    const environment = await createModuleEnvironment({ runner: nativeModuleRunner(module), seeds: [3, 17] });
    assert.deepEqual(environment.tasks().map((task) => task.id), ["seed-3", "seed-17"]);
    const task = environment.task("seed-17");
    const instance = environment.instance(task);
    assert.ok(environment.systemPrompt(task).includes(module.policy));
    const result = await runEpisode({ environment, task, policy: await solutionPolicy(instance), user: createInstanceUser(instance) });
    assert.equal(result.trajectory.termination, "user_stop");
    assert.deepEqual([result.trajectory.reward?.reward, result.trajectory.reward?.success], [1, true], JSON.stringify(result.trajectory.reward));
    const silent = await environment.grade(task, [], "user_stop");
    assert.equal(silent.success, false);
  });
}

test("episodes turn unknown tools, bad JSON and throwing tools into error observations; unknown tasks are refused", async () => {
  const throwing: CapabilityModule = {
    ...preconditionVerification,
    runTool: (state, name, args, sdk) => {
      if (name === "get_flight_status") throw new Error("boom");
      return preconditionVerification.runTool(state, name, args, sdk);
    },
  };
  const environment = await createModuleEnvironment({ runner: nativeModuleRunner(throwing), seeds: [1] });
  const episode = environment.start(environment.task("seed-1"));
  const call = (name: string, args: string) => episode.executeToolCall({ id: "c", type: "function", function: { name, arguments: args } });
  assert.deepEqual(await call("delete_everything", "{}"), { content: "Error: Tool 'delete_everything' not found.", error: true });
  assert.match((await call("get_user_details", '{"user_id": ')).content, /^Error: arguments are not valid JSON/);
  assert.match((await call("get_user_details", "[1]")).content, /^Error: arguments must be a JSON object/);
  assert.deepEqual(await call("get_flight_status", '{"flight_number": "HAT001", "date": "2024-05-20"}'), { content: "Error: boom", error: true });
  assert.equal((await call("get_reservation_details", '{"reservation_id": "NOPE"}')).error, true);
  assert.throws(() => environment.task("seed-2"), UnknownSeedTaskError);
});

test("the episode's state carries over between calls and starts fresh for each episode", async () => {
  const environment = await createModuleEnvironment({ runner: nativeModuleRunner(preconditionVerification), seeds: [5] });
  const task = environment.task("seed-5");
  const id = (environment.instance(task).facts.eligible as string[])[0]!;
  const call = (name: string) => ({ id: "c", type: "function" as const, function: { name, arguments: JSON.stringify({ reservation_id: id }) } });
  const first = environment.start(task);
  await first.executeToolCall(call("cancel_reservation"));
  assert.match((await first.executeToolCall(call("get_reservation_details"))).content, /"status":"cancelled"/);
  assert.match((await environment.start(task).executeToolCall(call("get_reservation_details"))).content, /"status":null/);
});

test("mutated modules are caught: Math.random or hidden state breaks determinism, an always-success verifier lets do-nothing pass", async () => {
  const seeds = Array.from({ length: 10 }, (_, index) => index);
  const randomGenerator: CapabilityModule = {
    ...preconditionVerification,
    generate: (seed, sdk) => ({ ...preconditionVerification.generate(seed, sdk), request: `Ticket ${Math.random()}` }),
  };
  const report = await checkDeterminism(nativeModuleRunner(randomGenerator), seeds);
  assert.equal(report.deterministic, false);
  assert.equal(report.mismatches.length, 10);
  assert.equal(report.mismatches[0]!.part, "generate");

  let calls = 0;
  const statefulTools: CapabilityModule = {
    ...preconditionVerification,
    runTool: (state, name, args, sdk) => {
      calls += 1;
      const outcome = preconditionVerification.runTool(state, name, args, sdk);
      return { ...outcome, output: `${outcome.output} #${calls}` };
    },
  };
  const stateful = await checkDeterminism(nativeModuleRunner(statefulTools), seeds);
  assert.deepEqual([stateful.deterministic, stateful.mismatches[0]!.part], [false, "runTool"]);

  const throwingGenerator: CapabilityModule = { ...preconditionVerification, generate: () => { throw new Error("no instance"); } };
  assert.deepEqual((await checkDeterminism(nativeModuleRunner(throwingGenerator), [0])).mismatches[0]!.part, "error");

  const alwaysSuccess: CapabilityModule = { ...preconditionVerification, verify: () => ({ reward: 1, success: true, breakdown: {} }) };
  const runner = nativeModuleRunner(alwaysSuccess);
  assert.equal((await checkDeterminism(runner, seeds)).deterministic, true);
  assert.equal((await playDoNothing(runner, 0)).success, true);
  assert.equal((await playDoNothing(nativeModuleRunner(preconditionVerification), 0)).success, false);
  assert.equal((await playSolution(nativeModuleRunner(preconditionVerification), 0)).success, true);
});

test("a malformed verdict is rejected with the offending value", async () => {
  const broken: CapabilityModule = { ...preconditionVerification, verify: () => ({ reward: 2, success: true, breakdown: {} }) };
  await assert.rejects(playSolution(nativeModuleRunner(broken), 0), (error: Error & { verdict?: unknown }) => error.name === "MalformedVerdictError" && (error.verdict as { reward: number }).reward === 2);
});

test("a module environment's read tools are the module's; its hint is the instance's solution and what it must say", async () => {
  const environment = await createModuleEnvironment({ runner: nativeModuleRunner(preconditionVerification), seeds: [4] });
  const task = environment.task("seed-4");
  const instance = environment.instance(task);
  assert.deepEqual(environment.readTools?.(task), preconditionVerification.readTools);
  const hint = environment.hint!(task)!;
  for (const call of instance.solution) assert.ok(hint.includes(`- ${call.name}(${JSON.stringify(call.arguments)})`), hint);
  for (const item of instance.mustSay) assert.ok(hint.includes(item), hint);
});
