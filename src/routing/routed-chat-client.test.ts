import assert from "node:assert/strict";
import { test } from "node:test";
import type { ChatClient } from "../models/chat-client.js";
import type { ChatRequest } from "../models/chat-types.js";
import { createRoutedChatClient, NoUserMessageError } from "./routed-chat-client.js";
import type { RoutingDecision } from "./routing-option.js";

function recordingClient(name: string, seen: string[]): ChatClient {
  return {
    complete: (request: ChatRequest) => {
      seen.push(`${name}:${request.messages.length}`);
      return Promise.resolve({ message: { role: "assistant", content: name }, finishReason: "stop", usage: { promptTokens: 1, completionTokens: 1 } } as unknown as Awaited<ReturnType<ChatClient["complete"]>>);
    },
    usage: () => ({ requests: seen.length, retries: 0, failures: 0, promptTokens: 0, completionTokens: 0, cost: null }),
  };
}

test("a routed client routes once on the first user message and answers every turn with the chosen model", async () => {
  const seen: string[] = [];
  const routed: string[] = [];
  const decision: RoutingDecision = { label: "A", capability: "cap", model: "cap-adapter", logprobs: [], source: "label_logprobs" };
  const client = createRoutedChatClient({
    route: (request) => {
      routed.push(request);
      return Promise.resolve(decision);
    },
    clientFor: (model) => recordingClient(model, seen),
    onRoute: (chosen, request) => routed.push(`decided ${chosen.model} for ${request}`),
  });
  const first: ChatRequest = { messages: [{ role: "system", content: "policy" }, { role: "assistant", content: "Hi!" }, { role: "user", content: "Cancel my order." }] };
  assert.equal((await client.complete(first)).message.content, "cap-adapter");
  await client.complete({ messages: [...first.messages, { role: "assistant", content: "Which one?" }, { role: "user", content: "The first." }] });
  assert.deepEqual(routed, ["Cancel my order.", "decided cap-adapter for Cancel my order."]);
  assert.deepEqual(seen, ["cap-adapter:3", "cap-adapter:5"]);
  assert.equal(client.usage().requests, 2);
});

test("a conversation without a user message is refused, naming its roles", async () => {
  const client = createRoutedChatClient({ route: () => Promise.reject(new Error("not called")), clientFor: () => recordingClient("x", []) });
  await assert.rejects(client.complete({ messages: [{ role: "system", content: "s" }] }), (error: unknown) => error instanceof NoUserMessageError && /roles: system/.test(error.message));
});
