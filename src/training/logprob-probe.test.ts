import assert from "node:assert/strict";
import { test } from "node:test";
import type { ChatClient } from "../models/chat-client.js";
import type { TrainerClient } from "../worker/trainer-client.js";
import type { ChatRequest } from "../models/chat-types.js";
import type { ToolSpec } from "../spec/tool-spec.js";
import { defaultProbeRelativeTolerance, defaultProbeTolerance, probeConversations, probeLogprobs, type ProbeConversation } from "./logprob-probe.js";
import { SamplerLogprobMismatchError } from "./sampler-logprob-mismatch-error.js";

test("the probe's default tolerance follows the trainer's dtype", () => {
  assert.equal(defaultProbeTolerance("float32"), 1e-3);
  assert.equal(defaultProbeTolerance("bfloat16"), 1e-1);
  assert.equal(defaultProbeTolerance("float16"), 1e-1);
  assert.equal(defaultProbeRelativeTolerance("float32"), 0);
  assert.equal(defaultProbeRelativeTolerance("bfloat16"), 2e-2);
});

/**
 * A sampler whose completion for seed s has the logprobs `sampled(s)` for three tokens, and a trainer (in `dtype`) that
 * scores every datum's completion `scored(s)`; `options` go to the probe. Each seed samples its own tokens unless
 * `tokenIds(s)` says which.
 */
function probe(
  sampled: (seed: number) => number[],
  scored: (seed: number) => number[],
  options: { dtype?: string; probes?: number; tokensBeyondTolerance?: number; confirmations?: number; unscored?: boolean; tokenIds?: (seed: number) => number[] } = {},
) {
  const seeds: number[] = [];
  const chat = {
    complete: (request: { seed: number }) => {
      seeds.push(request.seed);
      const logprobs = sampled(request.seed);
      return Promise.resolve({ message: { role: "assistant", content: "hi", tokens: { promptTokenIds: [1, 2], completionTokenIds: options.tokenIds?.(request.seed) ?? logprobs.map((_, index) => 100 * request.seed + index), completionLogprobs: logprobs } }, usage: { promptTokens: 2, completionTokens: logprobs.length } });
    },
  } as unknown as ChatClient;
  // The trainer's logprobs per position of a datum: the prompt's last position predicts the first completion token.
  const trainer = {
    health: () => Promise.resolve({ dtype: options.dtype ?? "bfloat16" }),
    forward: (request: { datums: unknown[] }) => Promise.resolve(request.datums.map((_, index) => (options.unscored === true && index === request.datums.length - 1 ? [0] : [0, ...scored(seeds[index]!)]))),
  } as unknown as TrainerClient;
  const { dtype: _dtype, unscored: _unscored, tokenIds: _tokenIds, ...probeOptions } = options;
  // One probe set unless a test asks for confirmations: the rules of a single set are what most tests check.
  return probeLogprobs({ chat, trainer, adapter: "a", model: "a-v1", confirmations: 0, ...probeOptions });
}
const same = (logprobs: number[]) => () => logprobs;

test("in bf16 an unlikely token may differ by more than a likely one; a difference on a likely token is beyond", async () => {
  const strict = { probes: 1, tokensBeyondTolerance: 1 };
  // 0.125 at logprob −15 is within 0.1 + 0.02 × 15 = 0.4.
  assert.equal(await probe(same([-0.1, -15.125, -2]), same([-0.1, -15, -2.02]), strict), 0.125);
  await assert.rejects(probe(same([-0.3, -15, -2]), same([-0.1, -15, -2]), strict), (error: unknown) => {
    assert.ok(error instanceof SamplerLogprobMismatchError);
    assert.match(error.message, /1 of 3 tokens beyond their tolerance; the furthest \|difference\| 2\.000e-1 > tolerance 0\.102 at a token of logprob -0\.100/);
    return true;
  });
  // In float32 the tolerance is absolute.
  await assert.rejects(probe(same([-0.1, -15.01, -2]), same([-0.1, -15, -2]), { ...strict, dtype: "float32" }), SamplerLogprobMismatchError);
});

test("the probe samples several completions on consecutive seeds; one token beyond is rounding, two are a broken sync", async () => {
  // Seed 3's first token is 0.2 off (beyond 0.102): one token of 24 — passed, and its difference reported.
  const oneOff = (seed: number) => (seed === 3 ? [-0.3, -15, -2] : [-0.1, -15, -2]);
  const largest = await probe(oneOff, same([-0.1, -15, -2]));
  assert.ok(Math.abs(largest - 0.2) < 1e-12, `largest difference ${largest}`);
  // Seeds 3 and 5: two tokens beyond — a mismatch, counted in the message.
  const twoOff = (seed: number) => (seed === 3 || seed === 5 ? [-0.3, -15, -2] : [-0.1, -15, -2]);
  await assert.rejects(probe(twoOff, same([-0.1, -15, -2])), (error: unknown) => {
    assert.ok(error instanceof SamplerLogprobMismatchError);
    assert.deepEqual(error.count, { beyond: 2, tokens: 24 });
    return true;
  });
  // A token the trainer did not score is a mismatch on its own, also when a probe with the same tokens was scored.
  await assert.rejects(probe(same([-0.1, -15, -2]), same([-0.1, -15, -2]), { unscored: true, tokenIds: () => [7, 8, 9] }), (error: unknown) => error instanceof SamplerLogprobMismatchError && Number.isNaN(error.maxDifference));
  await assert.rejects(probe(same([-0.1, -15, -2]), same([-0.1, -15, -2]), { unscored: true }), (error: unknown) => error instanceof SamplerLogprobMismatchError && Number.isNaN(error.maxDifference));
});

test("a failing probe set is confirmed on fresh seeds before the sync is called broken", async () => {
  // Seeds 3 and 5 read 0.2 off: the first set (seeds 0–7) fails, the confirming one (8–15) passes — rounding, not a stale sampler.
  const twoOff = (seed: number) => (seed === 3 || seed === 5 ? [-0.3, -15, -2] : [-0.1, -15, -2]);
  const largest = await probe(twoOff, same([-0.1, -15, -2]), { confirmations: 1 });
  assert.ok(Math.abs(largest - 0.2) < 1e-12, `largest difference ${largest}`);
  // Every seed off (a sampler behind the trainer): both sets fail, and the error says so.
  await assert.rejects(probe(same([-0.3, -15.5, -2]), same([-0.1, -15, -2]), { confirmations: 1 }), (error: unknown) => {
    assert.ok(error instanceof SamplerLogprobMismatchError);
    assert.equal(error.sets, 2);
    assert.match(error.message, /in each of 2 probe sets on fresh seeds/);
    return true;
  });
});

test("a token several probes sampled after the same prefix is one reading, counted once", async () => {
  // Seeds 3 and 5 sample the same first token, read 0.2 off by both: one distinct reading beyond — passed.
  const twoOff = (seed: number) => (seed === 3 || seed === 5 ? [-0.3, -15, -2] : [-0.1, -15, -2]);
  const sharedFirst = (seed: number) => (seed === 3 || seed === 5 ? [7, 100 * seed + 1, 100 * seed + 2] : [100 * seed, 100 * seed + 1, 100 * seed + 2]);
  const largest = await probe(twoOff, same([-0.1, -15, -2]), { tokenIds: sharedFirst });
  assert.ok(Math.abs(largest - 0.2) < 1e-12, `largest difference ${largest}`);
  // Every probe samples the same three tokens, and two positions are off: two distinct readings of three — a mismatch.
  const twoPositionsOff = () => [-0.3, -15.5, -2];
  await assert.rejects(probe(twoPositionsOff, same([-0.1, -15, -2]), { tokenIds: () => [7, 8, 9] }), (error: unknown) => {
    assert.ok(error instanceof SamplerLogprobMismatchError);
    assert.deepEqual(error.count, { beyond: 2, tokens: 3 });
    return true;
  });
});

test("probes continue the given conversations in turn; the same tokens after two conversations are two readings", async () => {
  const tool: ToolSpec = { type: "function", function: { name: "lookup", description: "lookup", parameters: { type: "object", properties: {} } } };
  const conversations: ProbeConversation[] = [{ messages: [{ role: "user", content: "first" }], tools: [tool] }, { messages: [{ role: "user", content: "second" }] }];
  const requests: ChatRequest[] = [];
  // Every probe samples tokens 7, 8; the sampler reads the first one 0.2 off the trainer's −0.1.
  const chat = {
    complete: (request: ChatRequest) => {
      requests.push(request);
      return Promise.resolve({ message: { role: "assistant", content: "x", tokens: { promptTokenIds: [1, 2], completionTokenIds: [7, 8], completionLogprobs: [-0.3, -1] } }, usage: { promptTokens: 2, completionTokens: 2 } });
    },
  } as unknown as ChatClient;
  const trainer = {
    health: () => Promise.resolve({ dtype: "bfloat16" }),
    forward: (request: { datums: unknown[] }) => Promise.resolve(request.datums.map(() => [0, -0.1, -1])),
  } as unknown as TrainerClient;
  // Four probes from seed 1: conversations 1, 0, 1, 0; one position off in each conversation — two distinct readings, a mismatch.
  await assert.rejects(probeLogprobs({ chat, trainer, adapter: "a", model: "a-v1", conversations, probes: 4, seed: 1, confirmations: 0 }), (error: unknown) => {
    assert.ok(error instanceof SamplerLogprobMismatchError);
    assert.deepEqual(error.count, { beyond: 2, tokens: 4 });
    return true;
  });
  assert.deepEqual(requests.map((request) => [request.seed, request.messages[0]!.content, request.tools?.length ?? 0]), [[1, "second", 0], [2, "first", 1], [3, "second", 0], [4, "first", 1]]);
  // One conversation: the same position read by every probe is one reading — passed.
  assert.ok(Math.abs((await probeLogprobs({ chat, trainer, adapter: "a", model: "a-v1", conversations: [conversations[0]!], probes: 4 })) - 0.2) < 1e-12);
  // No conversations: the default "Say hello.", without tools.
  requests.length = 0;
  await probeLogprobs({ chat, trainer, adapter: "a", model: "a-v1", conversations: [], probes: 1 });
  assert.deepEqual(requests[0]!.messages, [{ role: "user", content: "Say hello." }]);
  assert.equal(requests[0]!.tools, undefined);
});

test("probe conversations: the system prompt, then an episode's messages before one of its assistant turns, in turn", () => {
  const tools: ToolSpec[] = [{ type: "function", function: { name: "lookup", description: "lookup", parameters: { type: "object", properties: {} } } }];
  const episode = {
    systemPrompt: "policy",
    tools,
    messages: [
      { role: "user" as const, content: "cancel #W1" },
      { role: "assistant" as const, content: null, tool_calls: [{ id: "c1", type: "function" as const, function: { name: "lookup", arguments: "{}" } }] },
      { role: "tool" as const, tool_call_id: "c1", content: "pending" },
      { role: "assistant" as const, content: "Done." },
    ],
  };
  const roles = (conversation: ProbeConversation) => conversation.messages.map((message) => message.role).join(" ");
  const conversations = probeConversations([episode, { systemPrompt: "policy", messages: [{ role: "user", content: "no reply" }] }, episode, episode], 2);
  // The episode without an assistant turn gives none; at most 2; the second conversation cuts before the second turn.
  assert.deepEqual(conversations.map(roles), ["system user", "system user assistant tool"]);
  assert.deepEqual(conversations[0]!.messages[0], { role: "system", content: "policy" });
  assert.deepEqual(conversations[0]!.tools, tools);
  assert.deepEqual(probeConversations([episode], 8).map(roles), ["system user"]);
  const withoutTools = probeConversations([{ systemPrompt: "policy", messages: [{ role: "user", content: "hi" }, { role: "assistant", content: "hello" }] }], 8);
  assert.deepEqual(withoutTools, [{ messages: [{ role: "system", content: "policy" }, { role: "user", content: "hi" }] }]);
});
