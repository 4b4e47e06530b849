import assert from "node:assert/strict";
import { test } from "node:test";
import type { Message } from "../../spec/message.js";
import { CAPABILITY_ENVIRONMENTS } from "../../synthesis/environments/index.js";
import { nativeModuleRunner } from "../../envs/modules/module-runner.js";
import { solutionReply } from "../../envs/modules/module-policies.js";
import { planIteration } from "../../training/grpo-schedule.js";
import { createCapabilityMixture } from "./capability-mixture.js";
import { UnknownMixtureTaskError } from "./unknown-mixture-task-error.js";

const runners = CAPABILITY_ENVIRONMENTS.map(({ module }) => nativeModuleRunner(module));
const capabilities = runners.map((runner) => runner.capability);

test("tasks are the union, prefixed by capability, the same number per capability", async () => {
  const mixture = await createCapabilityMixture({ runners, seeds: [0, 1, 2] });
  const ids = mixture.tasks().map((task) => task.id);
  assert.equal(ids.length, 4 * 3);
  for (const capability of capabilities) assert.deepEqual(ids.filter((id) => id.startsWith(`${capability}/`)), [0, 1, 2].map((seed) => `${capability}/seed-${seed}`));
  assert.throws(() => mixture.task("nothing/seed-0"), UnknownMixtureTaskError);
});

test("GRPO's schedule over the mixture draws each capability uniformly", async () => {
  const mixture = await createCapabilityMixture({ runners, seeds: Array.from({ length: 10 }, (_, seed) => seed) });
  const counts = new Map<string, number>();
  for (let iteration = 1; iteration <= 10; iteration += 1) {
    for (const { task } of planIteration(mixture.tasks(), iteration, 4, 1, 7)) {
      const capability = mixture.owner(task).member.name;
      counts.set(capability, (counts.get(capability) ?? 0) + 1);
    }
  }
  // 40 draws = exactly one pass over the 40 tasks: 10 per capability.
  assert.deepEqual([...counts.values()], [10, 10, 10, 10]);
});

test("prompt, tools, user and grading go to the owning capability's environment", async () => {
  const mixture = await createCapabilityMixture({ runners, seeds: [0, 1] });
  for (const [index, runner] of runners.entries()) {
    const task = mixture.task(`${runner.capability}/seed-1`);
    const { member, task: own } = mixture.owner(task);
    assert.equal(member.name, runner.capability);
    assert.equal(own.id, "seed-1");
    assert.equal(mixture.systemPrompt(task), member.environment.systemPrompt(own));
    assert.deepEqual(mixture.tools(task).map((tool) => tool.function.name), runner.tools.map((tool) => tool.function.name));
    assert.deepEqual(mixture.readTools?.(task), runner.readTools);
    assert.equal(mixture.hint?.(task), member.environment.hint?.(own));
    const instance = await runner.generate(1);
    assert.equal((await mixture.makeUser(task).respond([])).content, instance.request);

    // The ground truth played through the mixture's episode is graded 1 by the owning module, doing nothing 0.
    const episode = mixture.start(task);
    assert.equal(episode.task.id, task.id);
    const messages: Message[] = [{ role: "user", content: instance.request }];
    for (const [number, call] of instance.solution.entries()) {
      const toolCall = { id: `call-${number}`, type: "function" as const, function: { name: call.name, arguments: JSON.stringify(call.arguments) } };
      messages.push({ role: "assistant", content: null, tool_calls: [toolCall] });
      const result = await episode.executeToolCall(toolCall);
      messages.push({ role: "tool", tool_call_id: toolCall.id, content: result.content, error: result.error });
    }
    messages.push({ role: "assistant", content: solutionReply(instance) });
    assert.equal((await mixture.grade(task, messages, "user_stop")).reward, 1, `${index}: ${runner.capability}`);
    assert.ok((await mixture.grade(task, [{ role: "user", content: instance.request }, { role: "assistant", content: "Sorry." }], "user_stop")).reward < 1);
  }
});
