import assert from "node:assert/strict";
import { test } from "node:test";
import { toolSandboxDataDirectory } from "../../testing/shared-data.js";
import { END_CONVERSATION_TOKEN } from "./conversation-replay.js";
import { createToolSandboxEnvironment } from "./environment.js";
import { loadToolSandboxExport } from "./load-export.js";
import { createToolSandboxScriptedUser, createToolSandboxUser, userSimulatorMessages } from "./user-simulator.js";
import type { ChatClient } from "../../models/chat-client.js";
import type { ChatRequest } from "../../models/chat-types.js";

const data = loadToolSandboxExport(toolSandboxDataDirectory());
const environment = createToolSandboxEnvironment(data, { scenarios: ["cellular_off"] });
const scenario = environment.scenario(environment.task("cellular_off"));

test("the user model sees ToolSandbox's role-play prompts, the few-shot exchange and the text turns, roles flipped", () => {
  const messages = userSimulatorMessages(scenario, [
    { role: "user", content: "Turn off cellular" },
    { role: "assistant", content: null, tool_calls: [{ id: "c", type: "function", function: { name: "set_cellular_service_status", arguments: "{}" } }] },
    { role: "tool", tool_call_id: "c", content: "None" },
    { role: "assistant", content: "Done." },
  ]);
  assert.deepEqual(
    messages.map((message) => message.role),
    ["system", "assistant", "user", "assistant", "user", "assistant", "user", "assistant", "user", "assistant", "user", "system", "assistant", "user"],
  );
  assert.match(messages[0]!.content as string, /Send a message to Bart saying: Hey what's up\.$/);
  assert.equal(messages[1]!.content, "I want to send a message to someone.");
  assert.match(messages[11]!.content as string, /want User B to complete: Turn off cellular service$/);
  assert.equal(messages[12]!.content, "Turn off cellular");
  assert.equal(messages[13]!.content, "Done.");
});

test("the LLM user opens with the scenario's message, is offered end_conversation after the agent, and calling it ends", async () => {
  const requests: ChatRequest[] = [];
  const client = {
    complete(request: ChatRequest) {
      requests.push(request);
      return Promise.resolve({ message: { role: "assistant", content: null, tool_calls: [{ id: "e", type: "function", function: { name: "end_conversation", arguments: "{}" } }] }, usage: { promptTokens: 1, completionTokens: 1 } });
    },
  } as unknown as ChatClient;
  const user = createToolSandboxUser({ client, scenario });
  assert.equal((await user.respond([])).content, "Turn off cellular");
  assert.equal(requests.length, 0);
  const turn = await user.respond([{ role: "user", content: "Turn off cellular" }, { role: "assistant", content: "Done." }]);
  assert.equal(turn.content, END_CONVERSATION_TOKEN);
  assert.deepEqual(requests[0]!.tools?.map((tool) => tool.function.name), ["end_conversation"]);
  const scripted = createToolSandboxScriptedUser(scenario, ["yes"]);
  assert.deepEqual([(await scripted.respond([])).content, (await scripted.respond([])).content, (await scripted.respond([])).content], ["Turn off cellular", "yes", END_CONVERSATION_TOKEN]);
});
