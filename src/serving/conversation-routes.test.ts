import assert from "node:assert/strict";
import { test } from "node:test";
import { contentText, conversationKey, createConversationRoutes, type RouteChoice } from "./conversation-routes.js";

const choice = (model: string): RouteChoice => ({ label: "A", capability: model, model });

test("the key depends on the system message and the first user message only", () => {
  const start = [
    { role: "system", content: "S" },
    { role: "user", content: "U" },
  ];
  const later = [...start, { role: "assistant", content: "a" }, { role: "user", content: "more" }];
  assert.equal(conversationKey(start), conversationKey(later));
  assert.notEqual(conversationKey(start), conversationKey([{ role: "user", content: "U" }]));
  assert.notEqual(conversationKey(start), conversationKey([{ role: "system", content: "S" }, { role: "user", content: "V" }]));
});

test("content text: strings as is, text parts joined by newlines, anything else empty", () => {
  assert.equal(contentText("hi"), "hi");
  assert.equal(contentText([{ type: "text", text: "a" }, { type: "image_url", image_url: { url: "x" } }, { type: "text", text: "b" }]), "a\nb");
  assert.equal(contentText(null), "");
});

test("turns arriving together are routed once; the least recently used conversation is forgotten past the bound", async () => {
  const asked: string[] = [];
  const routes = createConversationRoutes({
    maxConversations: 2,
    route: (request) => {
      asked.push(request);
      return Promise.resolve(choice(request));
    },
  });
  const conversation = (text: string) => [{ role: "user", content: text }];
  const [first, again] = await Promise.all([routes.routeFor(conversation("one")), routes.routeFor(conversation("one"))]);
  assert.deepEqual(first, again);
  await routes.routeFor(conversation("two"));
  await routes.routeFor(conversation("one")); // "one" is now the most recently used
  await routes.routeFor(conversation("three")); // forgets "two"
  assert.equal(routes.size, 2);
  await routes.routeFor(conversation("one"));
  await routes.routeFor(conversation("two"));
  assert.deepEqual(asked, ["one", "two", "three", "two"]);
});

test("a routing failure is not remembered, including one thrown synchronously", async () => {
  let calls = 0;
  const routes = createConversationRoutes({
    maxConversations: 10,
    route: () => {
      calls += 1;
      if (calls === 1) throw new Error("boom");
      return Promise.resolve(choice("ok"));
    },
  });
  await assert.rejects(routes.routeFor([{ role: "user", content: "x" }]), /boom/);
  assert.deepEqual(await routes.routeFor([{ role: "user", content: "x" }]), choice("ok"));
  assert.equal(calls, 2);
});
