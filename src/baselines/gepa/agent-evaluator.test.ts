import assert from "node:assert/strict";
import { after, test } from "node:test";
import { createChatClient } from "../../models/chat-client.js";
import { chatBody, sendJson, startFakeChatServer } from "../../testing/fake-chat-server.js";
import type { Message } from "../../spec/message.js";
import preconditionVerification from "../../synthesis/environments/precondition-verification.js";
import { createModuleEnvironment, nativeModuleRunner, solutionReply } from "../../envs/modules/index.js";
import { createInstanceUser } from "../../rollout/instance-user.js";
import { createAgentEvaluator } from "./agent-evaluator.js";
import { seedCandidateFromCapabilities } from "./candidate-system-prompt.js";

const closers: (() => Promise<void>)[] = [];
after(async () => {
  await Promise.all(closers.map((close) => close()));
});

test("the agent evaluator runs episodes with the candidate in the system prompt and returns reward, trace and feedback", async () => {
  const environment = await createModuleEnvironment({ runner: nativeModuleRunner(preconditionVerification), seeds: [3, 17] });
  const systemPrompts: string[] = [];
  // The fake policy replays the task's solution only when its system prompt says "verify first"; otherwise it just talks.
  const server = await startFakeChatServer((request, res) => {
    const messages = request.body.messages as Message[];
    const system = messages[0]!.content!;
    systemPrompts.push(system);
    const taskRequest = messages.find((message) => message.role === "user")!.content;
    const task = environment.tasks().find((candidate) => environment.instance(candidate).request === taskRequest)!;
    const instance = environment.instance(task);
    const made = messages.filter((message) => message.role === "assistant").flatMap((message) => message.tool_calls ?? []).length;
    const next = instance.solution[made];
    if (!system.includes("verify first")) sendJson(res, 200, chatBody({ content: "Done, anything else?" }));
    else if (next === undefined) sendJson(res, 200, chatBody({ content: solutionReply(instance) }));
    else sendJson(res, 200, chatBody({ content: null, tool_calls: [{ id: `call_${made}`, type: "function", function: { name: next.name, arguments: JSON.stringify(next.arguments) } }] }));
  });
  closers.push(() => server.close());
  const evaluate = createAgentEvaluator({
    environment,
    policy: createChatClient({ baseUrl: server.baseUrl, model: "test-model", maxRetries: 0, retryBaseMs: 1 }),
    user: (task) => createInstanceUser(environment.instance(task)),
    concurrency: 2,
  });
  const tasks = environment.tasks();

  const plain = seedCandidateFromCapabilities([{ name: "precondition_verification", description: "Be helpful." }]);
  const weak = await evaluate(plain, tasks);
  // Doing nothing earns the verifier's partial credit at most, never success.
  assert.ok(weak.every((outcome) => outcome.score < 1 && /Reward [\d.]+ \(failure\)/.test(outcome.feedback)), JSON.stringify(weak));
  assert.match(weak[0]!.trace, /\[agent\] Done, anything else\?/);
  assert.ok(systemPrompts.every((system) => system.includes("## Capabilities") && system.includes("### precondition_verification\n\nBe helpful.")));
  assert.ok(systemPrompts[0]!.startsWith(environment.systemPrompt(tasks[0]!).trimEnd()));

  const strong = await evaluate({ precondition_verification: "Always verify first: look the records up before any change." }, tasks);
  assert.deepEqual(strong.map((outcome) => outcome.score), [1, 1]);
  assert.match(strong[1]!.feedback, /Reward 1 \(success\)/);
  assert.match(strong[1]!.trace, /\[agent calls\] /);
  assert.ok(!environment.systemPrompt(tasks[0]!).includes("## Capabilities"));
});

test("with samplingSeed every episode of a task samples with the task's seed, under any candidate", async () => {
  const environment = await createModuleEnvironment({ runner: nativeModuleRunner(preconditionVerification), seeds: [3, 17] });
  const seen: { request: string; seed: unknown; temperature: unknown }[] = [];
  const server = await startFakeChatServer((request, res) => {
    const messages = request.body.messages as Message[];
    seen.push({ request: messages.find((message) => message.role === "user")!.content, seed: request.body.seed, temperature: request.body.temperature });
    sendJson(res, 200, chatBody({ content: "Done." }));
  });
  closers.push(() => server.close());
  const tasks = environment.tasks();
  const evaluate = createAgentEvaluator({
    environment,
    policy: createChatClient({ baseUrl: server.baseUrl, model: "test-model", maxRetries: 0, retryBaseMs: 1 }),
    user: (task) => createInstanceUser(environment.instance(task)),
    sampling: { temperature: 1, seed: 5 },
    samplingSeed: (task) => 1000 + tasks.indexOf(task),
    concurrency: 2,
  });
  await evaluate({}, tasks);
  await evaluate({ precondition_verification: "Verify first." }, [tasks[1]!]);
  const requestOf = (index: number) => environment.instance(tasks[index]!).request;
  // Every request of an episode (the user speaks again after each reply) carries its task's seed, not `sampling.seed`.
  assert.deepEqual(new Set(seen.map(({ request, seed }) => JSON.stringify([request, seed]))), new Set([JSON.stringify([requestOf(0), 1000]), JSON.stringify([requestOf(1), 1001])]));
  assert.ok(seen.every((request) => request.temperature === 1));
});

test("an episode whose prompt outgrows the policy's context scores 0; other endpoint failures still stop the evaluation", async () => {
  const environment = await createModuleEnvironment({ runner: nativeModuleRunner(preconditionVerification), seeds: [3] });
  const server = await startFakeChatServer((request, res) => {
    const system = (request.body.messages as Message[])[0]!.content!;
    if (system.includes("long text")) sendJson(res, 400, { error: { message: "the prompt has 4193 tokens; the model's context is 4096", type: "invalid_request_error", param: "messages" } });
    else if (system.includes("broken")) sendJson(res, 401, { error: { message: "invalid api key" } });
    else sendJson(res, 200, chatBody({ content: "Done, anything else?" }));
  });
  closers.push(() => server.close());
  const evaluate = createAgentEvaluator({
    environment,
    policy: createChatClient({ baseUrl: server.baseUrl, model: "test-model", maxRetries: 0, retryBaseMs: 1 }),
    user: (task) => createInstanceUser(environment.instance(task)),
  });
  const [overflow] = await evaluate({ precondition_verification: "A long text." }, environment.tasks());
  assert.equal(overflow!.score, 0);
  assert.match(overflow!.feedback, /outgrew the model's context after 1 step /);
  assert.match(overflow!.trace, /\[user\] /);
  await assert.rejects(evaluate({ precondition_verification: "A broken endpoint." }, environment.tasks()), /endpoint failed/);
});
