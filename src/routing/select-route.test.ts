import assert from "node:assert/strict";
import { test } from "node:test";
import { MissingLabelLogprobsError } from "./missing-label-logprobs-error.js";
import type { RoutingOption } from "./routing-option.js";
import { selectRoute } from "./select-route.js";

const options: RoutingOption[] = [
  { label: "A", capability: "tool_calling_precision", model: "tool_calling_precision", description: "ids", example: "user: hi" },
  { label: "B", capability: "multi_step_completion", model: "multi_step_completion", description: "all steps", example: "user: hi" },
  { label: "C", capability: null, model: "base", description: "", example: "" },
];
const ids = [10, 11, 12];

test("the label with the highest logprob wins", () => {
  const decision = selectRoute(options, ids, { labelLogprobs: { 10: -3, 11: -0.5, 12: -2 } });
  assert.equal(decision.label, "B");
  assert.equal(decision.model, "multi_step_completion");
  assert.equal(decision.source, "label_logprobs");
  assert.deepEqual(decision.logprobs, [
    { label: "A", logprob: -3 },
    { label: "B", logprob: -0.5 },
    { label: "C", logprob: -2 },
  ]);
});

test("ties go to the option listed first", () => {
  assert.equal(selectRoute(options, ids, { labelLogprobs: { 10: -1, 11: -1, 12: -1 } }).label, "A");
  assert.equal(selectRoute(options, ids, { labelLogprobs: { 10: -4, 11: -1, 12: -1 } }).label, "B");
});

test("'none of these' selects the base model", () => {
  const decision = selectRoute(options, ids, { labelLogprobs: { 10: -4, 11: -5, 12: -0.1 } });
  assert.equal(decision.capability, null);
  assert.equal(decision.model, "base");
});

test("without label logprobs, top_logprobs of the first position are used (by id, else by text)", () => {
  const byId = selectRoute(options, ids, {
    topLogprobs: [
      [
        { token: "x", logprob: -0.1, tokenId: 99 },
        { token: "A", logprob: -2, tokenId: 10 },
        { token: "C", logprob: -1, tokenId: 12 },
      ],
    ],
  });
  assert.equal(byId.label, "C");
  assert.equal(byId.source, "top_logprobs");
  assert.deepEqual(
    byId.logprobs.map((entry) => entry.logprob),
    [-2, null, -1],
  );
  const byText = selectRoute(options, ids, { labelLogprobs: {}, topLogprobs: [[{ token: "B", logprob: -0.3 }]] });
  assert.equal(byText.label, "B");
});

test("no logprob for any label is a typed error naming the labels", () => {
  assert.throws(
    () => selectRoute(options, ids, { topLogprobs: [[{ token: "zzz", logprob: -0.1 }]] }),
    (error: unknown) => error instanceof MissingLabelLogprobsError && error.labels.join() === "A,B,C",
  );
});
