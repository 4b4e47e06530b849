import assert from "node:assert/strict";
import { test } from "node:test";
import { ChatResponseError } from "./chat-response-error.js";
import { parseChatResponse, tokenIdOf } from "./parse-chat-response.js";

const url = "http://localhost/v1/chat/completions";

test("a plain OpenAI response becomes an assistant message with usage", () => {
  const body = { choices: [{ index: 0, message: { role: "assistant", content: "hello" }, finish_reason: "stop" }], usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 } };
  const completion = parseChatResponse(JSON.stringify(body), { url });
  assert.deepEqual(completion.message, { role: "assistant", content: "hello" });
  assert.equal(completion.finishReason, "stop");
  assert.deepEqual(completion.usage, { promptTokens: 5, completionTokens: 1 });
  assert.equal(completion.topLogprobs, undefined);
  assert.deepEqual(completion.raw, body);
});

test("vLLM's empty tool_calls list is dropped and a missing usage counts zero", () => {
  const completion = parseChatResponse(JSON.stringify({ choices: [{ message: { role: "assistant", content: "x", tool_calls: [] }, finish_reason: "stop" }] }), { url });
  assert.deepEqual(completion.message, { role: "assistant", content: "x" });
  assert.deepEqual(completion.usage, { promptTokens: 0, completionTokens: 0 });
});

test("label logprobs are read from token_id:N candidates at the first position", () => {
  const body = {
    choices: [
      {
        message: { role: "assistant", content: "1" },
        finish_reason: "length",
        logprobs: {
          content: [
            { token: "token_id:16", logprob: -0.1, top_logprobs: [{ token: "token_id:16", logprob: -0.1 }, { token: "token_id:17", logprob: -2.5 }, { token: "token_id:99", logprob: -3 }] },
          ],
        },
      },
    ],
    usage: { prompt_tokens: 3, completion_tokens: 1 },
  };
  const completion = parseChatResponse(JSON.stringify(body), { url, logprobTokenIds: [16, 17, 18] });
  assert.deepEqual(completion.labelLogprobs, { 16: -0.1, 17: -2.5 });
  assert.deepEqual(completion.topLogprobs?.[0]?.[1], { token: "token_id:17", logprob: -2.5, tokenId: 17 });
});

test("a malformed response names every problem", () => {
  const bad = { choices: [{ message: { content: 3, tool_calls: [{ id: "c", function: { name: "f" } }] } }], usage: { prompt_tokens: -1, completion_tokens: 1 } };
  assert.throws(
    () => parseChatResponse(JSON.stringify(bad), { url }),
    (error: unknown) => {
      assert.ok(ChatResponseError.isInstance(error));
      assert.match(error.message, /choices\.0\.message\.content/);
      assert.match(error.message, /choices\.0\.message\.tool_calls\.0\.function\.arguments/);
      assert.match(error.message, /usage\.prompt_tokens/);
      return true;
    },
  );
  assert.throws(() => parseChatResponse("<html>", { url }), /body is not JSON/);
  assert.throws(() => parseChatResponse(JSON.stringify({ choices: [] }), { url }), /choices: expected at least one choice/);
});

test("token ids and logprobs of different lengths are an error, not a silent misalignment", () => {
  const body = {
    prompt_token_ids: [1, 2],
    choices: [{ message: { content: "ab" }, token_ids: [5, 6], logprobs: { content: [{ token: "a", logprob: -1, top_logprobs: [] }] } }],
  };
  assert.throws(() => parseChatResponse(JSON.stringify(body), { url }), /1 entries but choices\.0\.token_ids has 2/);
});

test("tokenIdOf reads only the token_id:N form", () => {
  assert.equal(tokenIdOf("token_id:42"), 42);
  assert.equal(tokenIdOf("42"), undefined);
  assert.equal(tokenIdOf("token_id:"), undefined);
});
