import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { test } from "node:test";
import type { Message } from "../spec/message.js";
import type { ToolSpec } from "../spec/tool-spec.js";
import { ChatConnectionError } from "./chat-connection-error.js";
import { createChatClient } from "./chat-client.js";
import { ChatRequestError } from "./chat-request-error.js";
import { ChatResponseError } from "./chat-response-error.js";
import { ChatTimeoutError } from "./chat-timeout-error.js";
import { chatBody, sendJson, startFakeChatServer } from "../testing/fake-chat-server.js";

const fast = { retryBaseMs: 5, maxRetryDelayMs: 200, random: () => 0 };
const user: Message[] = [{ role: "user", content: "hi" }];

const lookupTool: ToolSpec = {
  type: "function",
  function: { name: "get_order", description: "Look up an order", parameters: { type: "object", properties: { id: { type: "string" } }, required: ["id"] } },
};

test("tool calls round trip: request carries tools and history, response tool_calls come back as is", async () => {
  const call = { id: "call_1", type: "function", function: { name: "get_order", arguments: '{"id":"#W1"}' } };
  const server = await startFakeChatServer((_request, res) => {
    sendJson(res, 200, { ...chatBody({ content: null, tool_calls: [call] }), choices: [{ index: 0, message: { role: "assistant", content: null, tool_calls: [call] }, finish_reason: "tool_calls" }] });
  });
  try {
    const client = createChatClient({ baseUrl: `${server.baseUrl}/`, apiKey: "sk-test", model: "m1", ...fast });
    const history: Message[] = [
      ...user,
      { role: "assistant", content: null, tool_calls: [{ id: "call_0", type: "function", function: { name: "get_order", arguments: "{}" } }], tokens: { promptTokenIds: [1], completionTokenIds: [2], completionLogprobs: [-1] } },
      { role: "tool", tool_call_id: "call_0", content: "Error: missing id", error: true },
    ];
    const completion = await client.complete({ messages: history, tools: [lookupTool], temperature: 0.5, topP: 0.9, maxTokens: 64, seed: 7, stop: ["</s>"], model: "m2" });
    assert.deepEqual(completion.message, { role: "assistant", content: null, tool_calls: [call] });
    assert.equal(completion.finishReason, "tool_calls");

    const [received] = server.received;
    assert.equal(received?.method, "POST");
    assert.equal(received?.path, "/v1/chat/completions");
    assert.equal(received?.headers.authorization, "Bearer sk-test");
    assert.deepEqual(received?.body, {
      model: "m2",
      messages: [
        { role: "user", content: "hi" },
        { role: "assistant", content: null, tool_calls: [{ id: "call_0", type: "function", function: { name: "get_order", arguments: "{}" } }] },
        { role: "tool", tool_call_id: "call_0", content: "Error: missing id" },
      ],
      tools: [lookupTool],
      temperature: 0.5,
      top_p: 0.9,
      max_tokens: 64,
      seed: 7,
      stop: ["</s>"],
    });
  } finally {
    await server.close();
  }
});

test("vLLM token ids and logprobs become SampledTokens and topLogprobs", async () => {
  const server = await startFakeChatServer((_request, res) => {
    sendJson(res, 200, {
      ...chatBody({ content: "Hi!" }, { prompt_token_ids: [101, 102, 103] }, { prompt_tokens: 3, completion_tokens: 2 }),
      choices: [
        {
          index: 0,
          message: { role: "assistant", content: "Hi!", tool_calls: [] },
          finish_reason: "stop",
          stop_reason: null,
          token_ids: [7, 8],
          logprobs: {
            content: [
              { token: "Hi", logprob: -0.25, bytes: [72, 105], top_logprobs: [{ token: "Hi", logprob: -0.25 }, { token: "Hello", logprob: -1.5 }] },
              { token: "!", logprob: -0.5, bytes: [33], top_logprobs: [{ token: "!", logprob: -0.5 }] },
            ],
          },
        },
      ],
    });
  });
  try {
    const client = createChatClient({ baseUrl: server.baseUrl, model: "m", ...fast });
    const completion = await client.complete({ messages: user, logprobs: true, topLogprobs: 2, returnTokenIds: true });
    assert.deepEqual(server.received[0]?.body, { model: "m", messages: user, logprobs: true, top_logprobs: 2, return_token_ids: true });
    assert.deepEqual(completion.message, {
      role: "assistant",
      content: "Hi!",
      tokens: { promptTokenIds: [101, 102, 103], completionTokenIds: [7, 8], completionLogprobs: [-0.25, -0.5] },
    });
    assert.deepEqual(completion.topLogprobs, [[{ token: "Hi", logprob: -0.25 }, { token: "Hello", logprob: -1.5 }], [{ token: "!", logprob: -0.5 }]]);
    assert.deepEqual(completion.usage, { promptTokens: 3, completionTokens: 2 });
    assert.equal(completion.labelLogprobs, undefined);
  } finally {
    await server.close();
  }
});

test("logprobTokenIds asks vLLM for those ids by number and returns labelLogprobs", async () => {
  const server = await startFakeChatServer((_request, res) => {
    sendJson(res, 200, {
      ...chatBody({ content: "1" }),
      choices: [
        {
          index: 0,
          message: { role: "assistant", content: "1" },
          finish_reason: "length",
          logprobs: { content: [{ token: "token_id:16", logprob: -0.1, top_logprobs: [{ token: "token_id:16", logprob: -0.1 }, { token: "token_id:17", logprob: -2.4 }] }] },
        },
      ],
    });
  });
  try {
    const client = createChatClient({ baseUrl: server.baseUrl, model: "m", ...fast });
    const completion = await client.complete({ messages: user, maxTokens: 1, logprobTokenIds: [16, 17] });
    const body = server.received[0]?.body;
    assert.deepEqual([body?.logprob_token_ids, body?.return_tokens_as_token_ids, body?.logprobs], [[16, 17], true, true]);
    assert.deepEqual(completion.labelLogprobs, { 16: -0.1, 17: -2.4 });
    assert.equal(completion.topLogprobs?.[0]?.[1]?.tokenId, 17);
  } finally {
    await server.close();
  }
});

test("503 is retried, and a Retry-After header sets the wait", async () => {
  const times: number[] = [];
  const server = await startFakeChatServer((_request, res, index) => {
    times.push(performance.now());
    if (index === 0) sendJson(res, 503, "overloaded");
    else if (index === 1) sendJson(res, 429, "slow down", { "retry-after": "0.15" });
    else sendJson(res, 200, chatBody({ content: "ok" }));
  });
  try {
    const client = createChatClient({ baseUrl: server.baseUrl, model: "m", maxRetries: 3, ...fast });
    const completion = await client.complete({ messages: user });
    assert.equal(completion.message.content, "ok");
    assert.equal(server.received.length, 3);
    const waitAfter429 = times[2]! - times[1]!;
    assert.ok(waitAfter429 >= 140, `waited ${waitAfter429} ms after Retry-After: 0.15`);
    assert.deepEqual(client.usage(), { requests: 1, retries: 2, failures: 0, promptTokens: 10, completionTokens: 2, cost: null });
  } finally {
    await server.close();
  }
});

test("a hung server times out on every attempt and ends in ChatTimeoutError", async () => {
  const server = await startFakeChatServer(() => {
    // never answers
  });
  try {
    const client = createChatClient({ baseUrl: server.baseUrl, model: "m", timeoutMs: 50, maxRetries: 2, ...fast });
    await assert.rejects(client.complete({ messages: user }), (error: unknown) => {
      assert.ok(ChatTimeoutError.isInstance(error));
      assert.equal(error.attempts, 3);
      assert.equal(error.timeoutMs, 50);
      assert.equal(error.model, "m");
      return true;
    });
    assert.equal(server.received.length, 3);
    assert.deepEqual(client.usage(), { requests: 1, retries: 2, failures: 1, promptTokens: 0, completionTokens: 0, cost: null });
  } finally {
    await server.close();
  }
});

test("a timeout followed by an answer succeeds", async () => {
  const server = await startFakeChatServer((_request, res, index) => {
    if (index > 0) sendJson(res, 200, chatBody({ content: "late but fine" }));
  });
  try {
    const client = createChatClient({ baseUrl: server.baseUrl, model: "m", timeoutMs: 50, maxRetries: 1, ...fast });
    assert.equal((await client.complete({ messages: user })).message.content, "late but fine");
    assert.equal(client.usage().retries, 1);
  } finally {
    await server.close();
  }
});

test("400 fails at once with ChatRequestError carrying the server's text", async () => {
  const serverText = '{"object":"error","message":"max_tokens is too large","code":400}';
  const server = await startFakeChatServer((_request, res) => sendJson(res, 400, serverText));
  try {
    const client = createChatClient({ baseUrl: server.baseUrl, model: "m", maxRetries: 3, ...fast });
    await assert.rejects(client.complete({ messages: user, maxTokens: 1e9 }), (error: unknown) => {
      assert.ok(ChatRequestError.isInstance(error));
      assert.equal(error.status, 400);
      assert.equal(error.body, serverText);
      assert.equal(error.model, "m");
      assert.equal(error.message, `POST ${server.baseUrl}/chat/completions → 400: ${serverText}`);
      return true;
    });
    assert.equal(server.received.length, 1);
    assert.deepEqual(client.usage(), { requests: 1, retries: 0, failures: 1, promptTokens: 0, completionTokens: 0, cost: null });
  } finally {
    await server.close();
  }
});

test("5xx on every attempt ends in ChatRequestError with the last status", async () => {
  const server = await startFakeChatServer((_request, res) => sendJson(res, 502, "bad gateway"));
  try {
    const client = createChatClient({ baseUrl: server.baseUrl, model: "m", maxRetries: 2, ...fast });
    await assert.rejects(client.complete({ messages: user }), /→ 502: bad gateway/);
    assert.equal(server.received.length, 3);
  } finally {
    await server.close();
  }
});

test("a malformed 200 is a ChatResponseError and is not retried", async () => {
  const server = await startFakeChatServer((_request, res) => sendJson(res, 200, { choices: [{ message: { content: 5 } }] }));
  try {
    const client = createChatClient({ baseUrl: server.baseUrl, model: "m", ...fast });
    await assert.rejects(client.complete({ messages: user }), (error: unknown) => ChatResponseError.isInstance(error) && /choices\.0\.message\.content/.test(error.message));
    assert.equal(server.received.length, 1);
  } finally {
    await server.close();
  }
});

test("a refused connection is retried, then ChatConnectionError", async () => {
  const server = await startFakeChatServer(() => undefined);
  const baseUrl = server.baseUrl;
  await server.close();
  const client = createChatClient({ baseUrl, model: "m", maxRetries: 1, ...fast });
  await assert.rejects(client.complete({ messages: user }), (error: unknown) => ChatConnectionError.isInstance(error) && error.attempts === 2);
  assert.equal(client.usage().retries, 1);
});

test("the concurrency limit is never exceeded and usage totals add up", async () => {
  const server = await startFakeChatServer(async (request, res) => {
    await sleep(10);
    const n = (request.body.messages as unknown[]).length;
    sendJson(res, 200, chatBody({ content: `n=${n}` }, {}, { prompt_tokens: n, completion_tokens: 1 }));
  });
  try {
    const client = createChatClient({ baseUrl: server.baseUrl, model: "m", maxConcurrency: 3, pricing: { promptPerMillion: 2, completionPerMillion: 10 }, ...fast });
    const conversations = Array.from({ length: 15 }, (_, i) => Array.from({ length: i + 1 }, (): Message => ({ role: "user", content: "x" })));
    const completions = await Promise.all(conversations.map((messages) => client.complete({ messages })));
    assert.deepEqual(completions.map((c) => c.message.content), conversations.map((m) => `n=${m.length}`));
    assert.equal(server.peakInFlight, 3);
    assert.deepEqual(client.usage(), { requests: 15, retries: 0, failures: 0, promptTokens: (15 * 16) / 2, completionTokens: 15, cost: (120 * 2 + 15 * 10) / 1e6 });
  } finally {
    await server.close();
  }
});
