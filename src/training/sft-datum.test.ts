import assert from "node:assert/strict";
import { test } from "node:test";
import type { Message } from "../spec/message.js";
import { CAPABILITY_ENVIRONMENTS } from "../synthesis/environments/index.js";
import { createModuleEnvironment } from "../envs/modules/module-environment.js";
import { nativeModuleRunner } from "../envs/modules/module-runner.js";
import type { ChatTokenize } from "../models/chat-tokenize-client.js";
import { sftDatum } from "./sft-datum.js";
import { successfulSolutionConversations } from "../baselines/consolidation/solution-conversation.js";
import { TemplatePrefixError } from "./template-prefix-error.js";

/** A hand-made ChatML-like template: `START role content… END NL` per message, then `START assistant` (the generation prompt). */
const START = 1, END = 2, NL = 3;
const ROLE: Record<Message["role"], number> = { system: 10, user: 11, assistant: 12, tool: 13 };
const CONTENT: Record<string, number> = { hi: 50, call: 51, result: 52, bye: 53, sys: 54 };
function render(message: Message): number[] {
  const text = message.role === "assistant" && message.tool_calls !== undefined ? "call" : (message.content ?? "");
  return [START, ROLE[message.role], ...text.split(" ").map((word) => CONTENT[word]!), END, NL];
}
const fakeTokenize: ChatTokenize = (messages) => Promise.resolve([...messages.flatMap(render), START, ROLE.assistant]);

const conversation: Message[] = [
  { role: "system", content: "sys" },
  { role: "user", content: "hi" },
  { role: "assistant", content: null, tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: "{}" } }] },
  { role: "tool", tool_call_id: "c", content: "result result" },
  { role: "assistant", content: "bye bye" },
];

test("only the tokens each assistant turn adds after its prompt carry weight, end-of-turn included; the trailing generation prompt is cut", async () => {
  const { datum, weightedTokens } = await sftDatum({ messages: conversation, tools: [], tokenize: fakeTokenize, endOfTurnTokenIds: [END] });
  const full = [
    START, ROLE.system, 54, END, NL, START, ROLE.user, 50, END, NL,
    START, ROLE.assistant, 51, END, NL,
    START, ROLE.tool, 52, 52, END, NL,
    START, ROLE.assistant, 53, 53, END,
  ];
  // weight of each token as a target: the assistant's content and END after each `START assistant` prompt.
  const weightOf = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1];
  assert.deepEqual(datum.tokens, full.slice(0, -1));
  assert.deepEqual(datum.targetTokens, full.slice(1));
  assert.deepEqual(datum.weights, weightOf.slice(1));
  assert.equal(weightedTokens, 5);
});

test("with lastTurnOnly, the earlier assistant turns are context: only the last one carries weight", async () => {
  const { datum, weightedTokens } = await sftDatum({ messages: conversation, tools: [], tokenize: fakeTokenize, endOfTurnTokenIds: [END], lastTurnOnly: true });
  const weightOf = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1];
  assert.deepEqual(datum.weights, weightOf.slice(1));
  assert.equal(weightedTokens, 3);
  // A conversation ending on its first assistant turn keeps that turn's weight and nothing after it.
  const first = await sftDatum({ messages: conversation.slice(0, 3), tools: [], tokenize: fakeTokenize, endOfTurnTokenIds: [END], lastTurnOnly: true });
  assert.equal(first.weightedTokens, 2);
});

test("a template that re-renders earlier turns is refused with the turn's index", async () => {
  const rerendering: ChatTokenize = async (messages, tools) => (messages.length === conversation.length ? [99, ...(await fakeTokenize(messages, tools))] : fakeTokenize(messages, tools));
  await assert.rejects(sftDatum({ messages: conversation, tools: [], tokenize: rerendering, endOfTurnTokenIds: [END] }), (error: unknown) => error instanceof TemplatePrefixError && error.messageIndex === 2);
});

test("every hand-written capability's ground truth becomes a transcript graded 1", async () => {
  const environments = await Promise.all(CAPABILITY_ENVIRONMENTS.map(({ module }) => createModuleEnvironment({ runner: nativeModuleRunner(module), seeds: [0, 1, 2] })));
  const conversations = await successfulSolutionConversations(environments);
  assert.equal(conversations.length, 12);
  for (const { messages, tools } of conversations) {
    assert.equal(messages[0]!.role, "system");
    // the agent loop's layout: the greeting, then the request
    assert.deepEqual(messages[1], { role: "assistant", content: "Hi! How can I help you today?" });
    assert.equal(messages[2]!.role, "user");
    assert.equal(messages.at(-1)!.role, "assistant");
    assert.ok(messages.some((message) => message.role === "tool"));
    assert.ok(tools.length > 0);
  }
});
