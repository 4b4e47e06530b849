import assert from "node:assert/strict";
import { test } from "node:test";
import type { Message } from "../spec/message.js";
import { decodeTurnTokens, encodeTurnTokens, mergeTokens, splitTokens } from "./token-codec.js";

test("tokens round-trip through the blob (logprobs at Float32 precision)", () => {
  const turns = [
    { messageIndex: 2, tokens: { promptTokenIds: [1, 2, 151643], completionTokenIds: [7, 8], completionLogprobs: [-0.1234567891, -Infinity] } },
    { messageIndex: 4, tokens: { promptTokenIds: [], completionTokenIds: [2147483647], completionLogprobs: [] } },
  ];
  const blob = encodeTurnTokens(turns);
  assert.ok(blob !== null);
  assert.equal(blob.byteLength, 4 * (2 + 4 + 3 + 2 + 2 + 4 + 1));
  const decoded = decodeTurnTokens(blob);
  assert.deepEqual(decoded, [
    { messageIndex: 2, tokens: { promptTokenIds: [1, 2, 151643], completionTokenIds: [7, 8], completionLogprobs: [Math.fround(-0.1234567891), -Infinity] } },
    turns[1],
  ]);
  assert.equal(encodeTurnTokens([]), null);
});

test("malformed blobs and ids are refused", () => {
  assert.throws(() => encodeTurnTokens([{ messageIndex: 0, tokens: { promptTokenIds: [1.5], completionTokenIds: [], completionLogprobs: [] } }]), RangeError);
  const blob = encodeTurnTokens([{ messageIndex: 0, tokens: { promptTokenIds: [1, 2], completionTokenIds: [3], completionLogprobs: [-1] } }]);
  assert.ok(blob !== null);
  assert.throws(() => decodeTurnTokens(blob.subarray(0, blob.byteLength - 4)), /truncated/);
  assert.throws(() => decodeTurnTokens(Buffer.alloc(8)), /magic/);
});

test("split and merge tokens on assistant messages", () => {
  const messages: Message[] = [
    { role: "user", content: "hi" },
    { role: "assistant", content: "hello", tokens: { promptTokenIds: [1], completionTokenIds: [2], completionLogprobs: [-0.5] } },
    { role: "assistant", content: null, tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: "{}" } }] },
  ];
  const { messages: stripped, turns } = splitTokens(messages);
  assert.equal(turns.length, 1);
  assert.ok(stripped.every((message) => !("tokens" in message)));
  assert.deepEqual(mergeTokens(stripped, turns), messages);
  assert.throws(() => mergeTokens(stripped, [{ messageIndex: 0, tokens: turns[0]!.tokens }]), /not an assistant/);
});
