import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import OpenAI from "openai";
import type { ChatCompletionCreateParamsNonStreaming, ChatCompletionTool } from "openai/resources/chat/completions";
import { chatBody, sendJson, startFakeChatServer, type FakeChatServer } from "../testing/fake-chat-server.js";
import type { RouteChoice } from "./conversation-routes.js";
import { createRoutedChatServer, ROUTE_HEADER, type ListeningChatServer } from "./routed-chat-server.js";

const lookupTool: ChatCompletionTool = {
  type: "function",
  function: { name: "get_order", description: "Look up an order", parameters: { type: "object", properties: { id: { type: "string" } }, required: ["id"] } },
};
const toolCalls = [
  { id: "call_1", type: "function", function: { name: "get_order", arguments: '{"id":"#W1"}' } },
  { id: "call_2", type: "function", function: { name: "get_order", arguments: '{"id":"#W2"}' } },
];
const logprobs = { content: [{ token: "Let", logprob: -0.5, bytes: [76, 101, 116], top_logprobs: [] }] };

/** The scripted upstream's answer: text, two tool calls, logprobs and token ids, answered by whatever model was asked for. */
function upstreamAnswer(model: string): Record<string, unknown> {
  const body = chatBody({ content: "Let me look.", tool_calls: toolCalls }, { model, prompt_token_ids: [1, 2, 3] }, { prompt_tokens: 3, completion_tokens: 5 });
  const [choice] = body.choices as Record<string, unknown>[];
  Object.assign(choice!, { finish_reason: "tool_calls", logprobs, token_ids: [9, 8, 7, 6, 5] });
  return body;
}

const adapter: RouteChoice = { label: "A", capability: "order_lookup", model: "order_lookup" };
const base: RouteChoice = { label: "B", capability: null, model: "tiny-base" };
const routed: string[] = [];
let upstream: FakeChatServer;
let server: ListeningChatServer;
let client: OpenAI;

before(async () => {
  upstream = await startFakeChatServer((request, res) => {
    if (request.body.model === "broken") return sendJson(res, 400, { error: { message: "adapter broken is not loaded", type: "invalid_request_error", param: "model", code: null } });
    sendJson(res, 200, upstreamAnswer(String(request.body.model)));
  });
  const routes = createRoutedChatServer({
    upstream: { baseUrl: upstream.baseUrl, apiKey: "upstream-key" },
    servedModelName: "trace-run",
    route: (request) => {
      routed.push(request);
      if (request.includes("crash")) return Promise.reject(new Error("router exploded"));
      return Promise.resolve(request.includes("broken") ? { ...adapter, model: "broken" } : request.includes("weather") ? base : adapter);
    },
  });
  server = await routes.listen(0, "127.0.0.1");
  client = new OpenAI({ baseURL: server.url, apiKey: "x", maxRetries: 0 });
});

after(async () => {
  await server.close();
  await upstream.close();
});

const request = (user: string, extra: Partial<ChatCompletionCreateParamsNonStreaming> = {}): ChatCompletionCreateParamsNonStreaming => ({
  model: "trace-run",
  messages: [
    { role: "system", content: "You are a shop assistant." },
    { role: "user", content: user },
  ],
  tools: [lookupTool],
  tool_choice: "auto",
  temperature: 0.3,
  max_tokens: 64,
  seed: 7,
  logprobs: true,
  top_logprobs: 2,
  ...extra,
});

test("a request is answered with the routed adapter: only model changes upstream, the answer and x-trace-route come back", async () => {
  const sent = { ...request("Where is my order #W1?"), return_token_ids: true } as ChatCompletionCreateParamsNonStreaming;
  const before = upstream.received.length;
  const { data, response } = await client.chat.completions.create(sent).withResponse();
  assert.equal(response.headers.get(ROUTE_HEADER), "order_lookup");
  assert.equal(response.headers.get("access-control-expose-headers"), ROUTE_HEADER);
  const received = upstream.received[before]!;
  assert.equal(received.path, "/v1/chat/completions");
  assert.equal(received.headers.authorization, "Bearer upstream-key");
  assert.deepEqual(received.body, { ...sent, model: "order_lookup" });
  assert.deepEqual(data, upstreamAnswer("order_lookup"));
});

test("later turns of a conversation keep its route without asking the router again", async () => {
  const first = request("Cancel order #W9 please.");
  const routedBefore = routed.length;
  await client.chat.completions.create(first);
  const second = {
    ...first,
    messages: [
      ...first.messages,
      { role: "assistant" as const, content: null, tool_calls: [toolCalls[0]!] as OpenAI.ChatCompletionMessageToolCall[] },
      { role: "tool" as const, tool_call_id: "call_1", content: '{"status":"pending"}' },
    ],
  };
  const { response } = await client.chat.completions.create(second).withResponse();
  assert.equal(response.headers.get(ROUTE_HEADER), "order_lookup");
  assert.deepEqual(routed.slice(routedBefore), ["Cancel order #W9 please."]);
  // Another system prompt is another conversation.
  await client.chat.completions.create({ ...first, messages: [{ role: "system", content: "Be brief." }, first.messages[1]!] });
  assert.equal(routed.length, routedBefore + 2);
});

test("the base model's route is named base; content parts are routed on their text", async () => {
  const before = upstream.received.length;
  const { response } = await client.chat.completions
    .create({ model: "anything", messages: [{ role: "user", content: [{ type: "text", text: "What is the weather" }, { type: "text", text: "in Paris?" }] }] })
    .withResponse();
  assert.equal(response.headers.get(ROUTE_HEADER), "base");
  assert.equal(upstream.received[before]!.body.model, "tiny-base");
  assert.equal(routed.at(-1), "What is the weather\nin Paris?");
});

test("stream: the completion comes back as chunks that reassemble to the same content and tool calls", async () => {
  const reference = await client.chat.completions.create(request("Stream my order #W3"));
  const before = upstream.received.length;
  const { data: stream, response } = await client.chat.completions.create({ ...request("Stream my order #W3"), stream: true, stream_options: { include_usage: true } }).withResponse();
  assert.equal(response.headers.get(ROUTE_HEADER), "order_lookup");
  assert.match(response.headers.get("content-type") ?? "", /^text\/event-stream/);
  let content = "";
  const calls: { id?: string; type?: string; name: string; arguments: string }[] = [];
  let finishReason: string | null = null;
  let usage: unknown;
  const roles: string[] = [];
  for await (const chunk of stream) {
    assert.equal(chunk.object, "chat.completion.chunk");
    if (chunk.usage) usage = chunk.usage;
    for (const choice of chunk.choices) {
      if (choice.delta.role) roles.push(choice.delta.role);
      content += choice.delta.content ?? "";
      for (const call of choice.delta.tool_calls ?? []) {
        const entry = (calls[call.index] ??= { name: "", arguments: "" });
        if (call.id) entry.id = call.id;
        if (call.type) entry.type = call.type;
        entry.name += call.function?.name ?? "";
        entry.arguments += call.function?.arguments ?? "";
      }
      finishReason = choice.finish_reason ?? finishReason;
    }
  }
  const message = reference.choices[0]!.message;
  assert.deepEqual(roles, ["assistant"]);
  assert.equal(content, message.content);
  assert.deepEqual(
    calls,
    message.tool_calls!.map((call) => ({ id: call.id, type: call.type, name: call.type === "function" ? call.function.name : "", arguments: call.type === "function" ? call.function.arguments : "" })),
  );
  assert.equal(finishReason, "tool_calls");
  assert.deepEqual(usage, reference.usage);
  const received = upstream.received[before]!.body;
  assert.equal("stream" in received || "stream_options" in received, false);
  assert.equal(received.model, "order_lookup");
});

test("stream: the openai client's stream helper assembles the same message, logprobs and finish reason", async () => {
  const reference = await client.chat.completions.create(request("Helper for order #W4"));
  const runner = client.chat.completions.stream({ ...request("Helper for order #W4"), stream: true });
  const deltas: string[] = [];
  runner.on("content", (delta) => deltas.push(delta));
  const final = await runner.finalChatCompletion();
  const [choice] = final.choices;
  const [expected] = reference.choices;
  assert.equal(deltas.join(""), expected!.message.content);
  assert.equal(choice!.message.content, expected!.message.content);
  assert.deepEqual(choice!.message.tool_calls, expected!.message.tool_calls);
  assert.equal(choice!.finish_reason, "tool_calls");
  assert.deepEqual(choice!.logprobs, expected!.logprobs);
  assert.deepEqual((choice as unknown as { token_ids: number[] }).token_ids, [9, 8, 7, 6, 5]);
});

test("an upstream refusal comes back with its status and body, streamed or not", async () => {
  for (const stream of [false, true]) {
    const response = await fetch(`${server.url}/chat/completions`, { method: "POST", body: JSON.stringify({ messages: [{ role: "user", content: "broken adapter" }], stream }) });
    assert.equal(response.status, 400);
    assert.equal(response.headers.get(ROUTE_HEADER), "broken");
    assert.deepEqual(await response.json(), { error: { message: "adapter broken is not loaded", type: "invalid_request_error", param: "model", code: null } });
  }
  await assert.rejects(client.chat.completions.create(request("broken again")), (error: unknown) => error instanceof OpenAI.BadRequestError && /not loaded/.test(error.message));
});

test("a bad body is a 400 OpenAI error naming what is wrong", async () => {
  const post = async (body: string) => {
    const response = await fetch(`${server.url}/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body });
    return { status: response.status, body: (await response.json()) as { error: { message: string; type: string; code: string; param: string | null } } };
  };
  const notJson = await post("{not json");
  assert.equal(notJson.status, 400);
  assert.equal(notJson.body.error.type, "invalid_request_error");
  assert.equal(notJson.body.error.code, "invalid_json");
  const noMessages = await post(JSON.stringify({ model: "trace-run" }));
  assert.equal(noMessages.status, 400);
  assert.equal(noMessages.body.error.param, "messages");
  assert.match(noMessages.body.error.message, /^messages: /);
  const noRole = await post(JSON.stringify({ messages: [{ content: "hi" }] }));
  assert.equal(noRole.body.error.param, "messages.0.role");
  const noUser = await post(JSON.stringify({ messages: [{ role: "system", content: "hi" }] }));
  assert.equal(noUser.status, 400);
  assert.equal(noUser.body.error.code, "no_user_message");
  await assert.rejects(client.chat.completions.create({ model: "x", messages: [] }), (error: unknown) => error instanceof OpenAI.BadRequestError);
});

test("a router failure is a 502 and is not remembered", async () => {
  const before = routed.length;
  for (let attempt = 0; attempt < 2; attempt += 1) {
    const response = await fetch(`${server.url}/chat/completions`, { method: "POST", body: JSON.stringify({ messages: [{ role: "user", content: "crash" }] }) });
    assert.equal(response.status, 502);
    const body = (await response.json()) as { error: { code: string; message: string } };
    assert.equal(body.error.code, "routing_failed");
    assert.match(body.error.message, /router exploded/);
  }
  assert.equal(routed.length, before + 2);
});

test("an unreachable upstream is a 502 OpenAI error, with the route named", async () => {
  const gone = await startFakeChatServer(() => undefined);
  const baseUrl = gone.baseUrl;
  await gone.close();
  const orphan = await createRoutedChatServer({ upstream: { baseUrl }, servedModelName: "trace", route: () => Promise.resolve(adapter) }).listen(0, "127.0.0.1");
  try {
    for (const stream of [false, true]) {
      const response = await fetch(`${orphan.url}/chat/completions`, { method: "POST", body: JSON.stringify({ messages: [{ role: "user", content: "hi" }], stream }) });
      assert.equal(response.status, 502);
      assert.equal(response.headers.get(ROUTE_HEADER), "order_lookup");
      const body = (await response.json()) as { error: { message: string; type: string; code: string } };
      assert.equal(body.error.code, "upstream_unreachable");
      assert.equal(body.error.type, "upstream_error");
      assert.match(body.error.message, new RegExp(`upstream ${baseUrl}/chat/completions unreachable`));
    }
    const openai = new OpenAI({ baseURL: orphan.url, apiKey: "x", maxRetries: 0 });
    await assert.rejects(openai.chat.completions.create({ model: "trace", messages: [{ role: "user", content: "hi" }] }), (error: unknown) => error instanceof OpenAI.APIError && error.status === 502);
  } finally {
    await orphan.close();
  }
});

test("an upstream slower than the timeout is a 504", async () => {
  const hung = await startFakeChatServer(() => undefined);
  const slow = await createRoutedChatServer({ upstream: { baseUrl: hung.baseUrl }, servedModelName: "trace", route: () => Promise.resolve(base), upstreamTimeoutMs: 100 }).listen(0, "127.0.0.1");
  try {
    const response = await fetch(`${slow.url}/chat/completions`, { method: "POST", body: JSON.stringify({ messages: [{ role: "user", content: "hi" }] }) });
    assert.equal(response.status, 504);
    assert.equal(((await response.json()) as { error: { code: string } }).error.code, "upstream_timeout");
  } finally {
    await slow.close();
    await hung.close();
  }
});

test("/v1/models lists the served name, /health answers, anything else is a 404 OpenAI error, CORS preflight passes", async () => {
  const models = await client.models.list();
  assert.deepEqual(
    models.data.map((model) => model.id),
    ["trace-run"],
  );
  const origin = server.url.replace(/\/v1$/, "");
  assert.deepEqual(await (await fetch(`${origin}/health`)).json(), { status: "ok", model: "trace-run" });
  const missing = await fetch(`${server.url}/completions`, { method: "POST", body: "{}" });
  assert.equal(missing.status, 404);
  assert.equal(((await missing.json()) as { error: { code: string } }).error.code, "not_found");
  const preflight = await fetch(`${server.url}/chat/completions`, { method: "OPTIONS", headers: { origin: "http://example.test", "access-control-request-method": "POST" } });
  assert.equal(preflight.status, 204);
  assert.equal(preflight.headers.get("access-control-allow-origin"), "*");
});
