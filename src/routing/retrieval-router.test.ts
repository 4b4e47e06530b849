import assert from "node:assert/strict";
import { test } from "node:test";
import { createRetrievalRouter, isMultiPart, requestSentences, RetrievalRouterError, type RetrievalOption } from "./retrieval-router.js";

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

test("identifiers and numbers carry no weight: a request sharing ids with another option's examples goes by its words", () => {
  const withIds: RetrievalOption[] = [
    { label: "A", capability: "cancel", model: "cancel-adapter", description: "", example: "", examples: ["I am u17. Please cancel order #W42.", "This is u17. Cancel order #W42, card_4821 was charged"] },
    { label: "B", capability: "payment", model: "payment-adapter", description: "", example: "", examples: ["I am u50. Please pay order #W11 with my card ending 1111.", "u51 here: use my gift card ending 2222 for order #W12"] },
    { label: "C", capability: null, model: "base", description: "", example: "", examples: [] },
  ];
  const router = createRetrievalRouter({ options: withIds, neighbours: 1 });
  assert.equal(router.route("I am u17. Please pay order #W42 with my card ending 4821.").capability, "payment");
  assert.equal(router.route("u17 #W42 card_4821 4821").capability, null, "a request of ids alone is like no example");
});

test("a request is multi-part when two or more of its sentences each match a capability's examples closely", () => {
  const router = createRetrievalRouter({ options, neighbours: 1 });
  assert.deepEqual(requestSentences("Hi, I am u4.  Please cancel order 5! Also pay order 6 with my card ending 1111?"), ["Hi, I am u4.", "Please cancel order 5!", "Also pay order 6 with my card ending 1111?"]);
  const twoParts = "Hi there. Please cancel order 5. Also pay order 6 with my card ending 1111.";
  const parts = router.confidentParts(twoParts, 0.3);
  assert.deepEqual(
    parts.map((part) => [part.part, part.capability]),
    [
      ["Please cancel order 5.", "cancel"],
      ["Also pay order 6 with my card ending 1111.", "payment"],
    ],
    "the greeting matches no example closely enough to count",
  );
  assert.equal(isMultiPart(router, twoParts, 0.3), true);
  assert.equal(isMultiPart(router, "Hi there. Please cancel order 5.", 0.3), false, "one request sentence");
  assert.equal(isMultiPart(router, "Please cancel order 5. Also cancel my order 8 please.", 0.3), true, "two parts of one capability count too");
  // The "capabilities" rule asks for parts of two different capabilities.
  assert.equal(isMultiPart(router, "Please cancel order 5. Also cancel my order 8 please.", 0.3, "capabilities"), false);
  assert.equal(isMultiPart(router, twoParts, 0.3, "capabilities"), true);
});
