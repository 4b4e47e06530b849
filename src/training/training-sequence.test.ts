import assert from "node:assert/strict";
import { test } from "node:test";
import type { Message, SampledTokens } from "../spec/message.js";
import { SampledTokensMismatchError } from "./sampled-tokens-mismatch-error.js";
import { buildTrainingSequences, weightedTokenCount } from "./training-sequence.js";

const turn = (promptTokenIds: number[], completionTokenIds: number[], completionLogprobs = completionTokenIds.map((token) => -token / 100)): Message => ({
  role: "assistant",
  content: "",
  tokens: { promptTokenIds, completionTokenIds, completionLogprobs },
});

test("a turn whose prompt extends the previous prompt + completion joins the sequence; only completions are sampled", () => {
  const messages: Message[] = [
    { role: "system", content: "s" },
    { role: "assistant", content: "Hi, how can I help?" },
    { role: "user", content: "u" },
    turn([1, 2, 3], [10, 11]),
    { role: "tool", tool_call_id: "c", content: "r" },
    turn([1, 2, 3, 10, 11, 4, 5], [12]),
  ];
  const [sequence, ...rest] = buildTrainingSequences(messages, 0.5);
  assert.equal(rest.length, 0);
  assert.deepEqual(sequence, {
    tokens: [1, 2, 3, 10, 11, 4, 5, 12],
    sampled: [false, false, false, true, true, false, false, true],
    logprobs: [0, 0, 0, -0.1, -0.11, 0, 0, -0.12],
    advantage: 0.5,
  });
  assert.equal(weightedTokenCount(sequence), 3);
});

test("a turn whose prompt does not extend the sequence starts a new one", () => {
  // The second prompt re-renders token 11 as 99 (the template changed the history): no extension.
  const sequences = buildTrainingSequences([turn([1, 2], [10, 11]), turn([1, 2, 10, 99, 4], [12, 13]), turn([1, 2, 10, 99, 4, 12, 13, 5], [14])], -1);
  assert.deepEqual(sequences.map((sequence) => sequence.tokens), [[1, 2, 10, 11], [1, 2, 10, 99, 4, 12, 13, 5, 14]]);
  assert.deepEqual(sequences[1]!.sampled, [false, false, false, false, false, true, true, false, true]);
  // A shorter prompt than the sequence cannot extend it either.
  assert.equal(buildTrainingSequences([turn([1, 2, 3], [4]), turn([1, 2], [5])], 1).length, 2);
});

test("episodes without sampled tokens give no sequences; inconsistent tokens are an error carrying them", () => {
  assert.deepEqual(buildTrainingSequences([{ role: "assistant", content: "x" }, turn([1], [])], 1), []);
  const bad: SampledTokens = { promptTokenIds: [1], completionTokenIds: [2, 3], completionLogprobs: [-1] };
  assert.throws(
    () => buildTrainingSequences([{ role: "assistant", content: "", tokens: bad }], 1),
    (error: unknown) => error instanceof SampledTokensMismatchError && error.tokens === bad && /1 logprobs for 2 completion tokens/.test(error.message),
  );
  assert.throws(() => buildTrainingSequences([turn([], [1])], 1), SampledTokensMismatchError);
});
