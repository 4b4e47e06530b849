import assert from "node:assert/strict";
import { test } from "node:test";
import type { Message } from "../spec/message.js";
import { toWireMessages } from "./wire-messages.js";

test("keeps the OpenAI fields and drops tokens and error", () => {
  const messages: Message[] = [
    { role: "system", content: "be brief" },
    { role: "user", content: "hi" },
    {
      role: "assistant",
      content: null,
      tool_calls: [{ id: "c1", type: "function", function: { name: "lookup", arguments: '{"x":1}' } }],
      tokens: { promptTokenIds: [1], completionTokenIds: [2], completionLogprobs: [-0.1] },
    },
    { role: "tool", tool_call_id: "c1", content: "Error: nope", error: true },
    { role: "assistant", content: "done", tool_calls: [] },
  ];
  assert.deepEqual(toWireMessages(messages), [
    { role: "system", content: "be brief" },
    { role: "user", content: "hi" },
    { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "lookup", arguments: '{"x":1}' } }] },
    { role: "tool", tool_call_id: "c1", content: "Error: nope" },
    { role: "assistant", content: "done" },
  ]);
});
