/**
 * The routed chat server in front of the real Python worker (tiny CPU checkpoint): an adapter saved and loaded back
 * the way `trace serve` loads trained ones, the official openai client answered with and without streaming.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import OpenAI from "openai";
import type { ChatCompletionCreateParamsNonStreaming } from "openai/resources/chat/completions";
import { createTinyCheckpoint } from "../worker/tiny-checkpoint.js";
import { startWorker, type WorkerProcess } from "../worker/worker-process.js";
import type { RouteChoice } from "./conversation-routes.js";
import { createRoutedChatServer, ROUTE_HEADER, type ListeningChatServer } from "./routed-chat-server.js";

const scratch = mkdtempSync(path.join(os.tmpdir(), "trace-serve-real-"));
const BASE = "tiny";
const ADAPTER = "order_lookup";
let worker: WorkerProcess | undefined;
let server: ListeningChatServer | undefined;
let client: OpenAI;
const routed: string[] = [];

before(async () => {
  const checkpoint = path.join(scratch, "tiny");
  await createTinyCheckpoint(checkpoint, { seed: 3 }, { onOutput: () => undefined });
  worker = await startWorker({ model: checkpoint, servedModelName: BASE });
  const trainer = worker.trainerClient();
  await trainer.createAdapter({ name: "scratch-adapter", rank: 4 });
  const adapterPath = path.join(scratch, "adapter");
  await trainer.saveAdapter({ adapter: "scratch-adapter", path: adapterPath });
  await trainer.loadLoraAdapter({ loraName: ADAPTER, loraPath: adapterPath });
  const route = (request: string): Promise<RouteChoice> => {
    routed.push(request);
    return Promise.resolve(request.includes("order") ? { label: "A", capability: ADAPTER, model: ADAPTER } : { label: "B", capability: null, model: BASE });
  };
  server = await createRoutedChatServer({ upstream: { baseUrl: worker.baseUrl, apiKey: worker.apiKey! }, route, servedModelName: "trace" }).listen(0, "127.0.0.1");
  client = new OpenAI({ baseURL: server.url, apiKey: "x", maxRetries: 0 });
});

after(async () => {
  await server?.close();
  await worker?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

/** A message with its tool calls' ids (random per completion) left out. */
function withoutCallIds(message: OpenAI.ChatCompletionMessage): Record<string, unknown> {
  return { ...message, tool_calls: (message.tool_calls ?? []).map(({ id: _id, ...call }) => call) };
}

const request = (user: string): ChatCompletionCreateParamsNonStreaming => ({
  model: "trace",
  messages: [{ role: "user", content: user }],
  tools: [{ type: "function", function: { name: "get_order", description: "Look up an order", parameters: { type: "object", properties: { id: { type: "string" } } } } }],
  temperature: 1,
  seed: 11,
  max_tokens: 12,
  logprobs: true,
  top_logprobs: 2,
});

test("the worker answers through the server with the routed adapter, exactly as it answers directly", { timeout: 120_000 }, async () => {
  const sent = request("Where is my order #W1?");
  const { data, response } = await client.chat.completions.create(sent).withResponse();
  assert.equal(response.headers.get(ROUTE_HEADER), ADAPTER);
  assert.equal(data.model, ADAPTER);
  assert.equal(data.usage?.completion_tokens, data.choices[0]!.logprobs!.content!.length);
  const direct = await new OpenAI({ baseURL: worker!.baseUrl, apiKey: worker!.apiKey!, maxRetries: 0 }).chat.completions.create({ ...sent, model: ADAPTER });
  assert.deepEqual(withoutCallIds(data.choices[0]!.message), withoutCallIds(direct.choices[0]!.message));

  const base = await client.chat.completions.create(request("Hello there")).withResponse();
  assert.equal(base.response.headers.get(ROUTE_HEADER), "base");
  assert.equal(base.data.model, BASE);
});

test("stream: the same seeded completion arrives as chunks, and the stream helper rebuilds it", { timeout: 120_000 }, async () => {
  const sent = request("Stream my order #W2");
  const reference = await client.chat.completions.create(sent);
  const { data: stream, response } = await client.chat.completions.create({ ...sent, stream: true, stream_options: { include_usage: true } }).withResponse();
  assert.equal(response.headers.get(ROUTE_HEADER), ADAPTER);
  let content = "";
  let usage: OpenAI.CompletionUsage | null | undefined;
  for await (const chunk of stream) {
    usage = chunk.usage ?? usage;
    for (const choice of chunk.choices) content += choice.delta.content ?? "";
  }
  assert.equal(content, reference.choices[0]!.message.content ?? "");
  assert.deepEqual(usage, reference.usage);
  const final = await client.chat.completions.stream({ ...sent, stream: true }).finalChatCompletion();
  assert.equal(final.choices[0]!.message.content, reference.choices[0]!.message.content);
  assert.deepEqual(withoutCallIds(final.choices[0]!.message).tool_calls, withoutCallIds(reference.choices[0]!.message).tool_calls);
  assert.equal(final.choices[0]!.finish_reason, reference.choices[0]!.finish_reason);
  // The same tokens; logprobs equal up to fp32 rounding (the repeated prompt's keys and values come from the worker's
  // prefix cache, summed in another order than the first prefill's).
  const tokens = (logprobs: OpenAI.ChatCompletion.Choice.Logprobs | null | undefined) =>
    logprobs!.content!.map((entry) => [entry.token, entry.top_logprobs.map((candidate) => candidate.token)]);
  const values = (logprobs: OpenAI.ChatCompletion.Choice.Logprobs | null | undefined) =>
    logprobs!.content!.flatMap((entry) => [entry.logprob, ...entry.top_logprobs.map((candidate) => candidate.logprob)]);
  assert.deepEqual(tokens(final.choices[0]!.logprobs), tokens(reference.choices[0]!.logprobs));
  const expected = values(reference.choices[0]!.logprobs);
  assert.ok(values(final.choices[0]!.logprobs).every((value, index) => Math.abs(value - expected[index]!) < 1e-4), "logprobs within 1e-4");
  assert.deepEqual(routed.filter((text) => text === "Stream my order #W2"), ["Stream my order #W2"]);
});
