/** The environment's tools replayed on ToolSandbox's scripted conversations: same responses, same scores. */
import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import { gunzipSync } from "node:zlib";
import { readFileSync } from "node:fs";
import type { AssistantMessage, Message } from "../../spec/message.js";
import { toolSandboxDataDirectory } from "../../testing/shared-data.js";
import { END_CONVERSATION_TOKEN } from "./conversation-replay.js";
import { createToolSandboxEnvironment, firstUserMessage } from "./environment.js";
import { loadToolSandboxExport } from "./load-export.js";

const directory = toolSandboxDataDirectory();
const data = loadToolSandboxExport(directory);
interface ScriptedCheck {
  scenario: string;
  description: string;
  script: ["call", [string, Record<string, unknown>][]] | ["say", string][];
  appended_messages: { sender: string; recipient: string; content: string; openai_tool_call_id: string | null }[];
  expected: { similarity: number; milestone_mapping: Record<string, [number, number]>; turn_count: number };
}
const checks = (JSON.parse(gunzipSync(readFileSync(path.join(directory, "grading_checks.json.gz"))).toString("utf8")) as { scripted_checks: ScriptedCheck[] }).scripted_checks;

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

test("ToolSandbox's scripted conversations played through the environment's tools give the same responses and scores", () => {
  const environment = createToolSandboxEnvironment(data, { scenarios: [...new Set(checks.map((check) => check.scenario))] });
  for (const check of checks) {
    const task = environment.task(check.scenario);
    const episode = environment.start(task);
    const messages: Message[] = [{ role: "user", content: firstUserMessage(environment.scenario(task)) }];
    let callNumber = 0;
    for (const step of check.script as [string, unknown][]) {
      if (step[0] === "say") {
        messages.push({ role: "assistant", content: step[1] as string });
        continue;
      }
      const calls = (step[1] as [string, Record<string, unknown>][]).map(([name, args]) => ({ id: `call_${++callNumber}`, type: "function" as const, function: { name, arguments: JSON.stringify(args) } }));
      const assistant: AssistantMessage = { role: "assistant", content: null, tool_calls: calls };
      messages.push(assistant);
      const results = episode.executeToolCalls(calls);
      calls.forEach((call, index) => messages.push({ role: "tool", tool_call_id: call.id, content: results[index]!.content, error: results[index]!.error }));
    }
    messages.push({ role: "user", content: END_CONVERSATION_TOKEN });
    const expectedResponses = new Map(check.appended_messages.filter((message) => message.sender === "EXECUTION_ENVIRONMENT" && message.recipient === "AGENT").map((message) => [message.openai_tool_call_id, message.content.replace(UUID, "<id>")]));
    for (const message of messages) if (message.role === "tool") assert.equal(message.content.replace(UUID, "<id>"), expectedResponses.get(message.tool_call_id), `${check.scenario} (${check.description}): ${message.tool_call_id}`);
    const evaluation = environment.evaluate(task, messages, "user_stop");
    assert.ok(Math.abs(evaluation.similarity - check.expected.similarity) <= 1e-6, `${check.scenario} (${check.description}): ${evaluation.similarity} ≠ ${check.expected.similarity}`);
    assert.deepEqual(evaluation.milestone_mapping, check.expected.milestone_mapping, check.description);
    assert.equal(evaluation.turn_count, check.expected.turn_count);
  }
});
