import assert from "node:assert/strict";
import { createServer, type AddressInfo } from "node:net";
import { after, test } from "node:test";
import { AGENT_GREETING } from "../envs/tau2/conversation-rules.js";
import { loadTau2Domain } from "../envs/tau2/domains.js";
import { createTau2Environment } from "../envs/tau2/environment.js";
import { createChatClient } from "../models/chat-client.js";
import { chatBody, type FakeHandler, type ReceivedRequest, sendJson, startFakeChatServer } from "../testing/fake-chat-server.js";
import type { Message, ToolCall } from "../spec/message.js";
import { tau2DomainDirectory } from "../testing/shared-data.js";
import { EpisodeEndpointError, runEpisode, type RunEpisodeOptions } from "./agent-loop.js";
import { createLlmUserSimulator } from "./llm-user-simulator.js";
import { createScriptedUser } from "./scripted-user.js";
import type { SimulatedUser } from "./simulated-user.js";

const airline = createTau2Environment(loadTau2Domain("airline", tau2DomainDirectory("airline")));
const task = airline.task("0");

const closers: (() => Promise<void>)[] = [];
after(async () => {
  await Promise.all(closers.map((close) => close()));
});

/** A fake policy server; the handler sees the request's conversation (system prompt first). */
async function policyServer(handler: FakeHandler) {
  const server = await startFakeChatServer(handler);
  closers.push(() => server.close());
  return { server, policy: createChatClient({ baseUrl: server.baseUrl, model: "test-model", maxRetries: 0, retryBaseMs: 1 }) };
}

function requestMessages(request: ReceivedRequest): Record<string, unknown>[] {
  return request.body.messages as Record<string, unknown>[];
}

function toolCall(id: string, name: string, args: string): ToolCall {
  return { id, type: "function", function: { name, arguments: args } };
}

const lookup = toolCall("call_1", "get_reservation_details", '{"reservation_id": "EHGLP3"}');

function roles(messages: readonly Message[]): string[] {
  return messages.map((message) => message.role);
}

function run(options: Omit<RunEpisodeOptions, "environment" | "task">) {
  return runEpisode({ environment: airline, task, ...options });
}

test("a tool lookup, an answer, then the user stops: user_stop, ordered messages, real observation, graded", async () => {
  const { server, policy } = await policyServer((request, res) => {
    const last = requestMessages(request).at(-1)!;
    if (last.role === "user") sendJson(res, 200, chatBody({ content: null, tool_calls: [lookup] }));
    else sendJson(res, 200, chatBody({ content: "Reservation EHGLP3 is a one-way economy trip. What would you like to do?" }));
  });
  const seen: Message[] = [];
  const result = await run({
    policy,
    user: createScriptedUser(["Hi, please look up reservation EHGLP3."]),
    sampling: { temperature: 0.5, topP: 0.9, maxTokens: 256, seed: 7 },
    trial: 2,
    onMessage: (message) => seen.push(message),
  });
  const { trajectory } = result;
  assert.equal(trajectory.termination, "user_stop");
  assert.equal(result.error, undefined);
  assert.deepEqual(roles(trajectory.messages), ["assistant", "user", "assistant", "tool", "assistant", "user"]);
  assert.deepEqual(trajectory.messages[0], { role: "assistant", content: AGENT_GREETING });
  assert.deepEqual(trajectory.messages[2], { role: "assistant", content: null, tool_calls: [lookup] });
  const expected = airline.start(task).executeToolCall(lookup);
  assert.equal(expected.error, false);
  assert.deepEqual(trajectory.messages[3], { role: "tool", tool_call_id: "call_1", content: expected.content, error: false });
  assert.equal(trajectory.messages[5]!.content, "###STOP###");
  assert.deepEqual(seen, trajectory.messages);
  // user, agent (tool call), environment, agent (text), user = 5 steps; the greeting is not a step.
  assert.deepEqual([result.steps, result.errors], [5, 0]);
  assert.deepEqual(trajectory.reward, airline.grade(task, trajectory.messages, "user_stop"));
  assert.deepEqual([trajectory.environment, trajectory.taskId, trajectory.trial, trajectory.seed], ["tau2-airline", "0", 2, 7]);
  assert.ok(result.durationMs >= 0);

  // The policy saw [system prompt, ...conversation] and the environment's tools, with the sampling parameters.
  assert.equal(server.received.length, 2);
  const first = server.received[0]!.body;
  assert.deepEqual(first.messages, [
    { role: "system", content: airline.systemPrompt(task) },
    { role: "assistant", content: AGENT_GREETING },
    { role: "user", content: "Hi, please look up reservation EHGLP3." },
  ]);
  assert.deepEqual(first.tools, airline.tools(task));
  assert.deepEqual([first.temperature, first.top_p, first.max_tokens, first.seed], [0.5, 0.9, 256, 7]);
  assert.deepEqual(requestMessages(server.received[1]!).at(-1), { role: "tool", tool_call_id: "call_1", content: expected.content });
});

test("invalid-JSON tool calls every turn end with too_many_errors at exactly max_errors", async () => {
  let n = 0;
  const { policy } = await policyServer((_request, res) => {
    n += 1;
    sendJson(res, 200, chatBody({ content: null, tool_calls: [toolCall(`bad_${n}`, "get_reservation_details", '{"reservation_id": 7')] }));
  });
  const result = await run({ policy, user: createScriptedUser(["Help me."]), maxErrors: 3 });
  assert.equal(result.trajectory.termination, "too_many_errors");
  assert.equal(result.errors, 3);
  // user, then (agent tool call, environment) × 3.
  assert.equal(result.steps, 7);
  const tools = result.trajectory.messages.filter((message) => message.role === "tool");
  assert.equal(tools.length, 3);
  assert.ok(tools.every((message) => message.error === true && message.content.startsWith("Error:")));
  assert.equal(result.trajectory.reward?.reward, 0);
});

test("errors count per tool call, so two failing calls in one turn can pass max_errors; unknown tools are errors too", async () => {
  const { policy } = await policyServer((_request, res, index) => {
    sendJson(res, 200, chatBody({ content: null, tool_calls: [toolCall(`a${index}`, "no_such_tool", "{}"), toolCall(`b${index}`, "get_reservation_details", "{}")] }));
  });
  const result = await run({ policy, user: createScriptedUser(["Help me."]), maxErrors: 3 });
  assert.equal(result.trajectory.termination, "too_many_errors");
  assert.deepEqual([result.errors, result.steps], [4, 5]);
});

test("max_steps: reached after a user or agent text turn, scored 0", async () => {
  const { policy } = await policyServer((_request, res) => sendJson(res, 200, chatBody({ content: "Could you tell me more?" })));
  const result = await run({ policy, user: createScriptedUser(["one", "two", "three"]), maxSteps: 4 });
  assert.equal(result.trajectory.termination, "max_steps");
  assert.equal(result.steps, 4);
  assert.deepEqual(roles(result.trajectory.messages), ["assistant", "user", "assistant", "user", "assistant"]);
  assert.deepEqual([result.trajectory.reward?.reward, result.trajectory.reward?.success], [0, false]);
});

test("max_steps is not checked while the next message goes to the environment, and it overrides a stop on the same step", async () => {
  const { policy } = await policyServer((_request, res) => sendJson(res, 200, chatBody({ content: null, tool_calls: [lookup] })));
  const result = await run({ policy, user: createScriptedUser(["Look it up."]), maxSteps: 2 });
  // Step 2 is the agent's tool call (next: environment, no check); step 3 runs the tool, then the limit applies.
  assert.equal(result.trajectory.termination, "max_steps");
  assert.equal(result.steps, 3);
  assert.equal(result.trajectory.messages.at(-1)!.role, "tool");

  const { policy: talker } = await policyServer((_request, res) => sendJson(res, 200, chatBody({ content: "Sure." })));
  const stopped = await run({ policy: talker, user: createScriptedUser(["Hello."]), maxSteps: 3 });
  // The user's ###STOP### is step 3: τ² still checks the limit after it, so the reason becomes max_steps.
  assert.equal(stopped.trajectory.messages.at(-1)!.content, "###STOP###");
  assert.deepEqual([stopped.trajectory.termination, stopped.steps], ["max_steps", 3]);
});

test("agent text containing ###STOP### ends with agent_stop and is graded", async () => {
  const { policy, server } = await policyServer((_request, res) => sendJson(res, 200, chatBody({ content: "Goodbye! ###STOP###" })));
  const result = await run({ policy, user: createScriptedUser(["Never mind, thanks."]) });
  assert.equal(result.trajectory.termination, "agent_stop");
  assert.equal(server.received.length, 1);
  assert.deepEqual(roles(result.trajectory.messages), ["assistant", "user", "assistant"]);
  assert.equal(result.steps, 2);
  assert.deepEqual(result.trajectory.reward, airline.grade(task, result.trajectory.messages, "agent_stop"));
});

test("a 400 the model caused (tool arguments that are not JSON) gives agent_error with the error text, without throwing", async () => {
  const { policy } = await policyServer((_request, res) => sendJson(res, 400, { object: "error", message: "Expecting ',' delimiter: line 1 column 22 (char 21)", type: "BadRequestError", code: 400 }));
  const result = await run({ policy, user: createScriptedUser(["Hello."]) });
  assert.equal(result.trajectory.termination, "agent_error");
  assert.match(result.error ?? "", /400/);
  assert.deepEqual(roles(result.trajectory.messages), ["assistant", "user"]);
  assert.equal(result.trajectory.reward?.reward, 0);
});

/** A port that refuses connections: bound, then closed. */
async function refusedBaseUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/v1`;
}

test("a policy endpoint that refuses the connection is an endpoint failure: EpisodeEndpointError, not an episode", async () => {
  const policy = createChatClient({ baseUrl: await refusedBaseUrl(), model: "test-model", maxRetries: 0 });
  const error = await run({ policy, user: createScriptedUser(["Hello."]), trial: 3 }).then(
    () => assert.fail("expected EpisodeEndpointError"),
    (failure: unknown) => failure,
  );
  assert.ok(EpisodeEndpointError.isInstance(error));
  assert.deepEqual([error.side, error.environment, error.taskId, error.trial, error.steps], ["policy", "tau2-airline", "0", 3, 1]);
  assert.deepEqual(roles(error.messages), ["assistant", "user"]);
  assert.equal((error.cause as Error).name, "ChatConnectionError");
  assert.match(error.message, /^the policy's endpoint failed: ChatConnectionError: POST http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions failed after 1 attempt/);
  assert.match(error.message, /ECONNREFUSED/);
});

test("a context-length overflow at the policy's endpoint and a failing LLM user endpoint are endpoint failures", async () => {
  const { policy } = await policyServer((_request, res) =>
    sendJson(res, 400, { object: "error", message: "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens.", type: "BadRequestError", code: 400 }),
  );
  await assert.rejects(run({ policy, user: createScriptedUser(["Hello."]) }), (error: Error) => EpisodeEndpointError.isInstance(error) && error.side === "policy" && /maximum context length/.test(error.message));

  const { policy: talker } = await policyServer((_request, res) => sendJson(res, 200, chatBody({ content: "How can I help?" })));
  const userClient = createChatClient({ baseUrl: await refusedBaseUrl(), model: "user-model", maxRetries: 0 });
  const user = createLlmUserSimulator({ client: userClient, guidelines: "Play the customer.", scenario: task.userInstructions });
  await assert.rejects(run({ policy: talker, user }), (error: Error) => EpisodeEndpointError.isInstance(error) && error.side === "user" && /^the user simulator's endpoint failed: ChatConnectionError/.test(error.message));
});

test("an empty agent message is an agent_error; a failing or empty user is a user_error", async () => {
  const { policy } = await policyServer((_request, res) => sendJson(res, 200, chatBody({ content: "  " })));
  const empty = await run({ policy, user: createScriptedUser(["Hello."]) });
  assert.equal(empty.trajectory.termination, "agent_error");
  assert.match(empty.error ?? "", /empty/);
  assert.equal(empty.trajectory.messages.length, 2);

  const broken: SimulatedUser = { respond: () => Promise.reject(new Error("user model down")) };
  const failed = await run({ policy, user: broken });
  assert.equal(failed.trajectory.termination, "user_error");
  assert.match(failed.error ?? "", /user model down/);
  assert.deepEqual(roles(failed.trajectory.messages), ["assistant"]);

  const silent: SimulatedUser = { respond: () => Promise.resolve({ content: "" }) };
  assert.equal((await run({ policy, user: silent })).trajectory.termination, "user_error");
});

test("token ids and logprobs from the server stay on the assistant messages but are not sent back", async () => {
  const { policy, server } = await policyServer((request, res, index) => {
    const body = chatBody(index === 0 ? { content: null, tool_calls: [lookup] } : { content: "All set." });
    const choice = (body.choices as Record<string, unknown>[])[0]!;
    choice.token_ids = [100 + index, 200 + index];
    choice.logprobs = { content: [{ token: "a", logprob: -0.5, top_logprobs: [] }, { token: "b", logprob: -0.25, top_logprobs: [] }] };
    body.prompt_token_ids = [1, 2, 3, index];
    assert.equal(request.body.return_token_ids, true);
    sendJson(res, 200, body);
  });
  const result = await run({ policy, user: createScriptedUser(["Check EHGLP3."]), sampling: { logprobs: true, returnTokenIds: true } });
  assert.equal(result.trajectory.termination, "user_stop");
  const assistants = result.trajectory.messages.filter((message) => message.role === "assistant");
  assert.equal(assistants[0]!.tokens, undefined, "the greeting was not sampled");
  assert.deepEqual(assistants[1]!.tokens, { promptTokenIds: [1, 2, 3, 0], completionTokenIds: [100, 200], completionLogprobs: [-0.5, -0.25] });
  assert.deepEqual(assistants[2]!.tokens, { promptTokenIds: [1, 2, 3, 1], completionTokenIds: [101, 201], completionLogprobs: [-0.5, -0.25] });
  assert.ok(requestMessages(server.received[1]!).every((message) => !("tokens" in message)));
});
