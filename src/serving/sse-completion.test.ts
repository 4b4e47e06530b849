import assert from "node:assert/strict";
import { test } from "node:test";
import { completionChunks, serverSentEvents, type ChatCompletionBody } from "./sse-completion.js";

const completion: ChatCompletionBody = {
  id: "chatcmpl-1",
  object: "chat.completion",
  created: 5,
  model: "order_lookup",
  choices: [
    {
      index: 0,
      message: { role: "assistant", content: "Looking.", tool_calls: [{ id: "call_1", type: "function", function: { name: "get_order", arguments: '{"id":"#W1"}' } }] },
      finish_reason: "tool_calls",
      logprobs: { content: [] },
      token_ids: [4, 2],
    },
  ],
  usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
  prompt_token_ids: [1, 2, 3],
};

test("chunks: role, content, one chunk per tool call, the finish; logprobs after the role, extra fields on the first", () => {
  const chunks = completionChunks(completion);
  const head = { id: "chatcmpl-1", object: "chat.completion.chunk", created: 5, model: "order_lookup" };
  assert.deepEqual(chunks, [
    { ...head, choices: [{ index: 0, delta: { role: "assistant", content: "" }, logprobs: null, finish_reason: null, token_ids: [4, 2] }], prompt_token_ids: [1, 2, 3] },
    { ...head, choices: [{ index: 0, delta: { content: "Looking." }, logprobs: { content: [] }, finish_reason: null }] },
    {
      ...head,
      choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "get_order", arguments: '{"id":"#W1"}' } }] }, logprobs: null, finish_reason: null }],
    },
    { ...head, choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: "tool_calls" }] },
  ]);
});

test("chunks with include_usage: usage null on every chunk, then a usage chunk with no choices", () => {
  const chunks = completionChunks({ ...completion, choices: [{ index: 0, message: { role: "assistant", content: null }, finish_reason: "length" }] }, { includeUsage: true });
  assert.deepEqual(
    chunks.map((chunk) => chunk.usage),
    [null, null, { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 }],
  );
  assert.deepEqual((chunks[0]!.choices as { delta: unknown }[])[0]!.delta, { role: "assistant", content: null });
  assert.deepEqual(chunks[2]!.choices, []);
});

test("server-sent events: one data line per chunk, then [DONE]", () => {
  assert.equal(serverSentEvents([{ a: 1 }, { b: "x" }]), 'data: {"a":1}\n\ndata: {"b":"x"}\n\ndata: [DONE]\n\n');
});
