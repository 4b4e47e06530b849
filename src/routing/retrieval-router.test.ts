import assert from "node:assert/strict";
import { test } from "node:test";
import { createRetrievalRouter, RetrievalRouterError, type RetrievalOption } from "./retrieval-router.js";

const options: RetrievalOption[] = [
  { label: "A", capability: "cancel", model: "cancel-adapter", description: "", example: "", examples: ["please cancel order 12", "cancel my order 40 please", "I want order 7 cancelled"] },
  { label: "B", capability: "payment", model: "payment-adapter", description: "", example: "", examples: ["pay order 12 with my card ending 4821", "use card ending 1111 to pay for order 3"] },
  { label: "C", capability: null, model: "base", description: "", example: "", examples: [] },
];

test("a request goes to the option of its nearest examples", () => {
  const router = createRetrievalRouter({ options, neighbours: 3 });
  assert.equal(router.route("Could you cancel order 55?").capability, "cancel");
  const decision = router.route("Please pay for order 9 with the card ending 2222");
  assert.equal(decision.capability, "payment");
  assert.equal(decision.model, "payment-adapter");
  assert.equal(decision.source, "retrieval");
  assert.ok(decision.similarity > 0);
});

test("a request like no example goes to none of these; an option without examples is refused", () => {
  const router = createRetrievalRouter({ options, minimumSimilarity: 0.2 });
  assert.equal(router.route("what is the weather like").capability, null);
  assert.throws(() => createRetrievalRouter({ options: [{ ...options[0]!, examples: [] }] }), RetrievalRouterError);
  assert.throws(() => createRetrievalRouter({ options: options.slice(0, 2), minimumSimilarity: 0.5 }).route("hello there"), RetrievalRouterError);
});
