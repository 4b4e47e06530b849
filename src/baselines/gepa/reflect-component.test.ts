import assert from "node:assert/strict";
import { after, test } from "node:test";
import { createChatClient } from "../../models/chat-client.js";
import { chatBody, sendJson, startFakeChatServer } from "../../testing/fake-chat-server.js";
import { reflectComponent } from "./reflect-component.js";
import { ReflectionReplyError } from "./reflection-reply-error.js";

const closers: (() => Promise<void>)[] = [];
after(async () => {
  await Promise.all(closers.map((close) => close()));
});

/** A reflection server with a context of `contextChars` characters, refusing longer prompts as the worker does. */
async function reflectionServer(contextChars: number) {
  const lengths: number[] = [];
  const server = await startFakeChatServer((request, res) => {
    const prompt = (request.body.messages as { content: string }[])[0]!.content;
    lengths.push(prompt.length);
    if (prompt.length > contextChars) sendJson(res, 400, { error: { message: `the prompt has ${prompt.length} tokens; the model's context is ${contextChars}`, type: "invalid_request_error", param: "messages" } });
    else sendJson(res, 200, chatBody({ content: "```\nCheck the status first.\n```" }));
  });
  closers.push(() => server.close());
  return { client: createChatClient({ baseUrl: server.baseUrl, model: "reflector", maxRetries: 0, retryBaseMs: 1 }), lengths };
}

const outcomes = Array.from({ length: 6 }, (_, index) => ({ score: index % 2, trace: `[user] request ${index}\n${"[agent calls] get_order_details {}\n".repeat(60)}`, feedback: "Reward 0 (failure)." }));

test("a reflection prompt longer than the reflection model's context is sent again with shorter traces", async () => {
  const { client, lengths } = await reflectionServer(5000);
  const text = await reflectComponent({ client }, { precondition: "Be careful." }, "precondition", outcomes);
  assert.equal(text, "Check the status first.");
  assert.ok(lengths.length >= 2, `retried: ${JSON.stringify(lengths)}`);
  assert.ok(lengths[0]! > 5000 && lengths.at(-1)! <= 5000, JSON.stringify(lengths));
  // Each retry is shorter than the one before.
  for (let index = 1; index < lengths.length; index += 1) assert.ok(lengths[index]! < lengths[index - 1]!, JSON.stringify(lengths));
});

test("a reflection that cannot fit even with the shortest traces skips the proposal with a reason", async () => {
  const { client, lengths } = await reflectionServer(500);
  await assert.rejects(reflectComponent({ client }, { precondition: "Be careful." }, "precondition", outcomes), (error: unknown) => {
    assert.ok(error instanceof ReflectionReplyError);
    assert.match((error as Error).message, /reflection for precondition: the prompt does not fit the reflection model's context even with traces cut to 250 characters/);
    return true;
  });
  assert.ok(lengths.length >= 3 && lengths.length <= 6, JSON.stringify(lengths));
});

test("other refusals of the reflection endpoint are not retried", async () => {
  const server = await startFakeChatServer((_request, res) => sendJson(res, 400, { error: { message: "unknown model", type: "invalid_request_error" } }));
  closers.push(() => server.close());
  const client = createChatClient({ baseUrl: server.baseUrl, model: "reflector", maxRetries: 0, retryBaseMs: 1 });
  await assert.rejects(reflectComponent({ client }, { precondition: "Be careful." }, "precondition", outcomes), /unknown model/);
  assert.equal(server.received.length, 1);
});
