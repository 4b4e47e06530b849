import assert from "node:assert/strict";
import { after, test } from "node:test";
import path from "node:path";
import { tau2DataDirectory, tau2DomainDirectory } from "../testing/shared-data.js";
import { loadTau2Domain } from "../envs/tau2/domains.js";
import { createTau2Environment } from "../envs/tau2/environment.js";
import { DataFileError } from "../envs/core/data-file-error.js";
import { createChatClient } from "../models/chat-client.js";
import { chatBody, sendJson, startFakeChatServer } from "../testing/fake-chat-server.js";
import type { Message } from "../spec/message.js";
import { createLlmUserSimulator, flipRolesForUser, readUserSimulatorGuidelines, userSimulatorSystemPrompt } from "./llm-user-simulator.js";

const closers: (() => Promise<void>)[] = [];
after(async () => {
  for (const close of closers) await close();
});

const conversation: Message[] = [
  { role: "assistant", content: "Hi! How can I help you today?" },
  { role: "user", content: "Cancel EHGLP3." },
  { role: "assistant", content: null, tool_calls: [{ id: "c", type: "function", function: { name: "get_reservation_details", arguments: "{}" } }] },
  { role: "tool", tool_call_id: "c", content: "{}" },
  { role: "assistant", content: "It cannot be refunded." },
];

test("the user sees only user turns and the agent's text, with roles flipped", () => {
  assert.deepEqual(flipRolesForUser(conversation), [
    { role: "user", content: "Hi! How can I help you today?" },
    { role: "assistant", content: "Cancel EHGLP3." },
    { role: "user", content: "It cannot be refunded." },
  ]);
});

test("the system prompt is the guidelines, then the task's scenario in <scenario> tags", () => {
  const guidelines = readUserSimulatorGuidelines(path.join(tau2DataDirectory(), "user_simulator"));
  assert.ok(guidelines.startsWith("# User Simulation Guidelines"));
  const task = createTau2Environment(loadTau2Domain("airline", tau2DomainDirectory("airline"))).task("0");
  const prompt = userSimulatorSystemPrompt(guidelines, task.userInstructions);
  assert.ok(prompt.startsWith(guidelines));
  assert.ok(prompt.endsWith(`\n\n<scenario>\n${task.userInstructions}\n</scenario>`));
  assert.throws(() => readUserSimulatorGuidelines("/nonexistent"), DataFileError);
});

test("the simulator asks the model with its system prompt and the flipped conversation", async () => {
  const server = await startFakeChatServer((_request, res) => sendJson(res, 200, chatBody({ content: "Then don't cancel. ###STOP###" })));
  closers.push(() => server.close());
  const client = createChatClient({ baseUrl: server.baseUrl, model: "user-model", maxRetries: 0 });
  const user = createLlmUserSimulator({ client, guidelines: "GUIDE", scenario: "SCENARIO", sampling: { temperature: 0 } });
  const turn = await user.respond(conversation);
  assert.equal(turn.content, "Then don't cancel. ###STOP###");
  const body = server.received[0]!.body;
  assert.equal(body.temperature, 0);
  assert.equal(body.tools, undefined);
  const messages = body.messages as { role: string; content: string }[];
  assert.deepEqual(messages[0], { role: "system", content: "GUIDE\n\n<scenario>\nSCENARIO\n</scenario>" });
  assert.deepEqual(messages.slice(1).map((message) => message.role), ["user", "assistant", "user"]);
});
