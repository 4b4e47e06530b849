import assert from "node:assert/strict";
import { test } from "node:test";
import type { ChatTokenize } from "../models/chat-tokenize-client.js";
import type { AssistantMessage, Message } from "../spec/message.js";
import { isInformationTurn, trainingTurns, truncateToolResults, TRUNCATION_MARK, type TrainingTurnsOptions } from "./grpo-turns.js";

const call = (name: string, id = name) => ({ id, type: "function" as const, function: { name, arguments: "{}" } });
const assistant = (names: string[], promptTokenIds: number[] = [], content: string | null = null): AssistantMessage => ({
  role: "assistant",
  content,
  ...(names.length === 0 ? {} : { tool_calls: names.map((name, index) => call(name, `${name}${index}`)) }),
  tokens: { promptTokenIds, completionTokenIds: [90 + promptTokenIds.length], completionLogprobs: [-1] },
});
const tool = (content: string): Message => ({ role: "tool", tool_call_id: "x", content });
const reads = new Set(["get_user", "search"]);

test("an information turn calls tools, every one a read tool", () => {
  assert.equal(isInformationTurn(assistant(["get_user"]), reads), true);
  assert.equal(isInformationTurn(assistant(["get_user", "search"]), reads), true);
  assert.equal(isInformationTurn(assistant(["get_user", "cancel"]), reads), false);
  assert.equal(isInformationTurn(assistant([], [], "text"), reads), false);
});

test("tool results before the last N assistant turns are cut to N characters (code points) with a mark; the rest stay", () => {
  const context: Message[] = [{ role: "user", content: "u" }, assistant(["get_user"]), tool("abcdefgh"), assistant(["search"]), tool("ééééé"), assistant(["search"]), tool("12345678")];
  const one = truncateToolResults(context, 1, 3);
  assert.equal(one.truncated, 2);
  assert.deepEqual(one.messages.map((message) => (message.role === "tool" ? message.content : message.role)), ["user", "assistant", `abc${TRUNCATION_MARK}`, "assistant", `ééé${TRUNCATION_MARK}`, "assistant", "12345678"]);
  assert.equal(truncateToolResults(context, 2, 3).truncated, 1);
  assert.equal(truncateToolResults(context, 5, 3).truncated, 0, "fewer assistant turns than N: nothing is old");
  assert.equal(truncateToolResults(context, 0, 3).truncated, 3, "N = 0: every result");
  assert.equal(truncateToolResults(context, 1, 8).truncated, 0, "short enough");
  assert.equal(context[2]!.role === "tool" && context[2]!.content, "abcdefgh", "the input is not changed");
});

/** Renders a message as its length, so a re-rendered prompt is recognisable. */
const tokenize: ChatTokenize = (messages) => Promise.resolve([1000, ...messages.map((message) => ("content" in message && typeof message.content === "string" ? message.content.length : 0))]);
const options = (overrides: Partial<TrainingTurnsOptions> = {}): TrainingTurnsOptions => ({
  systemPrompt: "plain",
  sampledSystemPrompt: "plain",
  tools: [],
  readTools: reads,
  dropInformationTurns: true,
  truncation: { enabled: true, keepTurns: 1, maxCharacters: 4 },
  tokenize,
  ...overrides,
});

test("information turns are dropped except the episode's last; untouched contexts keep the sampled tokens", async () => {
  const messages: Message[] = [{ role: "assistant", content: "Hi" }, { role: "user", content: "u" }, assistant(["get_user"], [1]), tool("ok"), assistant(["cancel"], [2]), tool("ok"), assistant(["search"], [3])];
  const turns = await trainingTurns(messages, options());
  assert.deepEqual({ kept: turns.kept, dropped: turns.dropped, truncated: turns.truncatedToolResults }, { kept: 2, dropped: 1, truncated: 0 });
  assert.deepEqual(turns.turns.map((turn) => [turn.tokens.promptTokenIds, turn.rewritten]), [[[2], false], [[3], false]], "the last turn is kept although it only reads");
  const all = await trainingTurns(messages, options({ dropInformationTurns: false }));
  assert.equal(all.kept, 3);
  const unknown = await trainingTurns(messages, options({ readTools: undefined }));
  assert.equal(unknown.dropped, 0, "without read tools nothing is dropped");
});

test("a hinted episode's turns and truncated contexts are re-rendered with the plain system prompt; completions stay as sampled", async () => {
  const messages: Message[] = [{ role: "user", content: "u" }, assistant(["cancel"], [7]), tool("long result"), assistant(["cancel"], [8]), tool("x"), assistant([], [9], "done")];
  const hinted = await trainingTurns(messages, options({ sampledSystemPrompt: "plain + hint" }));
  assert.ok(hinted.turns.every((turn) => turn.rewritten));
  assert.deepEqual(hinted.turns[0]!.tokens.promptTokenIds, [1000, "plain".length, 1], "system, user");
  assert.deepEqual(hinted.turns[0]!.tokens.completionTokenIds, [91]);
  assert.deepEqual(hinted.turns[2]!.tokens.promptTokenIds, [1000, 5, 1, 0, 4 + TRUNCATION_MARK.length, 0, 1]);
  const plain = await trainingTurns(messages, options());
  assert.deepEqual(plain.turns.map((turn) => turn.rewritten), [false, false, true], "only the last turn's context has an old long result");
  assert.equal(plain.truncatedToolResults, 1);
  const untruncated = await trainingTurns(messages, options({ truncation: { enabled: false, keepTurns: 1, maxCharacters: 4 } }));
  assert.ok(untruncated.turns.every((turn) => !turn.rewritten));
});
