/**
 * runGrpo's mechanisms end to end with a scripted policy and a recording trainer (no worker): which rollouts are
 * hinted and what their datums' prompts are, dynamic sampling's rounds, dropped information turns, truncated tool
 * results and the trainer's logprobs for re-rendered sequences. Tokens are a toy rendering (one token per character).
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import type { ChatClient } from "../models/chat-client.js";
import type { ChatRequest } from "../models/chat-types.js";
import type { Environment } from "../spec/environment.js";
import type { AssistantMessage, Message } from "../spec/message.js";
import type { Task } from "../spec/task.js";
import type { ToolSpec } from "../spec/tool-spec.js";
import type { TrainerClient } from "../worker/trainer-client.js";
import type { Datum } from "../worker/trainer-types.js";
import type { GrpoMechanismsInput } from "./grpo-mechanisms.js";
import { TRUNCATION_MARK } from "./grpo-turns.js";
import type { GrpoIterationMetrics } from "./grpo-types.js";
import type { ProbeConversation } from "./logprob-probe.js";
import { runGrpo } from "./run-grpo.js";

const scratch = mkdtempSync(path.join(os.tmpdir(), "trace-run-grpo-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

const ROLE = { system: 1, user: 2, assistant: 3, tool: 4 } as const;
const END = 5;
const codes = (text: string) => [...text].map((character) => 100 + character.codePointAt(0)!);
/** An assistant message's tokens after the generation prompt: its text, its calls' names, the end of the turn. */
const completionOf = (message: AssistantMessage) => [...codes(message.content ?? ""), ...(message.tool_calls ?? []).flatMap((call) => codes(call.function.name)), END];
const render = (message: Message) => (message.role === "assistant" ? [ROLE.assistant, ...completionOf(message)] : [ROLE[message.role], ...codes(message.content), END]);
/** The toy chat template: every message rendered, then the generation prompt. */
const template = (messages: readonly Message[]) => [...messages.flatMap(render), ROLE.assistant];

const SYSTEM = "SYS";
const RESULT = "r".repeat(300);
const tools: ToolSpec[] = ["lookup", "act"].map((name) => ({ type: "function", function: { name, description: name, parameters: { type: "object", properties: {} } } }));
const tasks: Task[] = ["a", "b", "c", "d"].map((id) => ({ id, userInstructions: "help" }));

/** Reward 1 when the agent called `act`; `hint` for every task. */
function environment(withHint: boolean): Environment {
  return {
    name: "toy",
    rules: { userStopTokens: ["###STOP###"], maxSteps: 20, maxErrors: 5 },
    tasks: () => tasks,
    task: (id) => tasks.find((task) => task.id === id)!,
    systemPrompt: () => SYSTEM,
    tools: () => tools,
    readTools: () => ["lookup"],
    ...(withHint ? { hint: () => "call act" } : {}),
    start: (task) => ({ task, executeToolCall: (call) => ({ content: call.function.name === "lookup" ? RESULT : "ok", error: false }) }),
    grade: (_task, messages) => {
      const reward = messages.some((message) => message.role === "assistant" && message.tool_calls?.some((call) => call.function.name === "act")) ? 1 : 0;
      return { reward, success: reward === 1, breakdown: {} };
    },
  };
}

/** lookup, then `act` when the system prompt carries the hint (else a text answer), then a closing text. */
const policy: ChatClient = {
  complete(request: ChatRequest) {
    const turn = request.messages.filter((message) => message.role === "assistant").length;
    const hinted = request.messages[0]!.content!.includes("<expert_guidance>");
    const call = (name: string) => ({ role: "assistant" as const, content: null, tool_calls: [{ id: `c${turn}`, type: "function" as const, function: { name, arguments: "{}" } }] });
    const message: AssistantMessage = turn === 0 ? call("lookup") : turn === 1 && hinted ? call("act") : { role: "assistant", content: "done" };
    const completion = completionOf(message);
    message.tokens = { promptTokenIds: template(request.messages), completionTokenIds: completion, completionLogprobs: completion.map(() => -0.5) };
    return Promise.resolve({ message, finishReason: "stop", usage: { promptTokens: 0, completionTokens: 0 }, raw: {} });
  },
  usage: () => ({ requests: 0, retries: 0, failures: 0, promptTokens: 0, completionTokens: 0, cost: null }),
};

/** Records forward and forward_backward datums; forward says −0.25 for every target. */
function recordingTrainer() {
  const forwards: Datum[][] = [];
  const updates: Datum[][] = [];
  const created: { name: string; seed?: number; rank?: number }[] = [];
  const trainer = {
    baseUrl: "http://trainer.invalid/v1",
    listAdapters: () => Promise.resolve([]),
    createAdapter: (adapter: { name: string; seed?: number; rank?: number }) => {
      created.push(adapter);
      return Promise.resolve({ name: adapter.name, trainableParameters: 1, targetModules: [] });
    },
    tokenizeChat: (messages: readonly Message[]) => Promise.resolve(template(messages)),
    forward: (request: { datums: Datum[] }) => {
      forwards.push(request.datums);
      return Promise.resolve(request.datums.map((datum) => datum.targetTokens.map(() => -0.25)));
    },
    forwardBackward: (request: { datums: Datum[] }) => {
      updates.push(request.datums);
      return Promise.resolve({ loss: 0, tokens: 1, metrics: { lossSum: 0, clipFraction: 0, approxKl: 0, entropy: 1, meanRatio: 1 }, logprobs: [] });
    },
    optimStep: () => Promise.resolve({ step: updates.length, gradNorm: 1 }),
    saveAdapter: () => Promise.resolve(),
    saveState: () => Promise.resolve(),
  } as unknown as TrainerClient;
  return { trainer, forwards, updates, created };
}

async function run(name: string, options: { hint: boolean; mechanisms: GrpoMechanismsInput; samples?: number; episodesAllowed?: () => number; baseSeed?: number; adapterSeed?: number }) {
  const recorded = recordingTrainer();
  const history: GrpoIterationMetrics[] = [];
  const syncs: { step: number; conversations: readonly ProbeConversation[] | undefined }[] = [];
  await runGrpo({
    environment: environment(options.hint),
    makeUser: () => {
      let said = 0;
      return { respond: () => Promise.resolve({ content: said++ === 0 ? "hello" : "###STOP###" }) };
    },
    capability: name,
    trainer: recorded.trainer,
    sampler: policy,
    sync: {
      sync: (step, conversations) => {
        syncs.push({ step, conversations });
        return Promise.resolve({ model: "policy", probeDifference: null });
      },
    },
    adaptersDirectory: scratch,
    iterations: 1,
    groups: 2,
    samples: options.samples ?? 4,
    mechanisms: options.mechanisms,
    onIteration: (metrics) => history.push(metrics),
    ...(options.episodesAllowed === undefined ? {} : { episodesAllowed: options.episodesAllowed }),
    ...(options.baseSeed === undefined ? {} : { baseSeed: options.baseSeed }),
    adapterConfig: { rank: 8, ...(options.adapterSeed === undefined ? {} : { seed: options.adapterSeed }) },
  });
  return { ...recorded, metrics: history[0]!, syncs };
}

const decode = (tokens: readonly number[]) => tokens.map((token) => (token >= 100 ? String.fromCodePoint(token - 100) : `<${token}>`)).join("");

test("hints: a quarter of each group sees the hint; the update trains on the plain prompt with the trainer's logprobs", async () => {
  const { metrics, updates, forwards } = await run("hints", { hint: true, mechanisms: { hints: { share: 0.25 }, dynamicSampling: { extraRounds: 0 }, dropInformationTurns: false, toolResultTruncation: { enabled: false } } });
  assert.equal(metrics.episodes, 8);
  assert.equal(metrics.hintedShare, 0.25);
  assert.equal(metrics.rewardMeanHinted, 1);
  assert.equal(metrics.rewardMeanPlain, 0);
  assert.equal(metrics.groupsKept, 2);
  const datums = updates[0]!;
  // 8 episodes: the hinted ones (lookup, act, done) and the plain ones (lookup, done) are one sequence each.
  assert.equal(datums.length, 8);
  for (const datum of datums) assert.ok(!decode(datum.tokens).includes("expert_guidance"), "no datum carries the hint");
  const hinted = datums.filter((datum) => decode(datum.tokens).includes("act"));
  assert.equal(hinted.length, 2);
  assert.ok(decode(hinted[0]!.tokens).startsWith(`<1>${SYSTEM}<5><2>hello<5><3>lookup<5><4>`), decode(hinted[0]!.tokens));
  // Their sampling logprobs are the trainer's (−0.25) on sampled targets; plain episodes keep the sampler's (−0.5).
  assert.equal(forwards.length, 1);
  assert.equal(forwards[0]!.length, 2);
  for (const datum of hinted) assert.deepEqual([...new Set(datum.samplingLogprobs!.filter((_, index) => datum.weights![index] === 1))], [-0.25]);
  const plain = datums.filter((datum) => !decode(datum.tokens).includes("act"));
  for (const datum of plain) assert.deepEqual([...new Set(datum.samplingLogprobs!.filter((_, index) => datum.weights![index] === 1))], [-0.5]);
});

test("dynamic sampling: rounds are added while fewer than half the groups are informative, up to the limit", async () => {
  const constant = await run("dynamic-constant", { hint: false, mechanisms: { dynamicSampling: { extraRounds: 2, minInformativeShare: 0.5 } } });
  assert.equal(constant.metrics.samplingRounds, 3);
  assert.equal(constant.metrics.episodes, 3 * 2 * 4);
  assert.equal(constant.metrics.informativeShare, 0);
  assert.equal(constant.metrics.groupsDropped, 6);
  assert.equal(constant.updates.length, 0, "no informative group, no update");
  const informative = await run("dynamic-informative", { hint: true, mechanisms: { dynamicSampling: { extraRounds: 2 } } });
  assert.equal(informative.metrics.samplingRounds, 1);
  assert.equal(informative.metrics.informativeShare, 1);
});

test("dynamic sampling stops where the iteration's allowed episodes (a budget's remainder) end", async () => {
  // Rounds of 2 × 4 = 8 episodes: 20 allowed pays for two rounds, not a third.
  const capped = await run("dynamic-capped", { hint: false, mechanisms: { dynamicSampling: { extraRounds: 2, minInformativeShare: 0.5 } }, episodesAllowed: () => 20 });
  assert.equal(capped.metrics.samplingRounds, 2);
  assert.equal(capped.metrics.episodes, 16);
  const exact = await run("dynamic-exact", { hint: false, mechanisms: { dynamicSampling: { extraRounds: 2, minInformativeShare: 0.5 } }, episodesAllowed: () => 24 });
  assert.equal(exact.metrics.samplingRounds, 3);
});

test("information-only turns (lookup) carry no loss unless last; earlier long tool results are truncated in the training context", async () => {
  const { metrics, updates } = await run("turns", { hint: true, mechanisms: { hints: { share: 0.25 }, dynamicSampling: { extraRounds: 0 }, dropInformationTurns: true, toolResultTruncation: { enabled: true, keepTurns: 1, maxCharacters: 10 } } });
  // Hinted: lookup (dropped), act, done; plain: lookup (dropped), done. 8 episodes.
  assert.equal(metrics.turnsDropped, 8);
  assert.equal(metrics.turnsKept, 2 * 2 + 6 * 1);
  // The hinted episode's last turn ("done") comes two assistant turns after the lookup: its result is truncated there.
  assert.equal(metrics.toolResultsTruncated, 2);
  const datums = updates[0]!;
  for (const datum of datums) {
    const sampled = decode(datum.targetTokens.filter((_, index) => datum.weights![index] === 1));
    assert.ok(!sampled.includes("lookup"), `lookup turns carry no loss: ${sampled}`);
  }
  const truncated = datums.filter((datum) => decode(datum.tokens).includes(`${"r".repeat(10)}${TRUNCATION_MARK}`));
  assert.equal(truncated.length, 2);
  const full = datums.filter((datum) => decode(datum.tokens).includes(RESULT));
  assert.ok(full.length >= 6, "the plain episodes' contexts keep the lookup result of their last turn in full");
});

test("the sync after a step hands the probe prefixes of the step's plain rollouts, with the system prompt and tools", async () => {
  const { syncs } = await run("probe-conversations", { hint: true, mechanisms: { hints: { share: 0.25 }, dynamicSampling: { extraRounds: 0 }, dropInformationTurns: false, toolResultTruncation: { enabled: false } } });
  // The initial sync has no rollouts; the one after the step gets the 6 plain episodes of the 2 kept groups (member 0 of each is hinted).
  assert.deepEqual(syncs.map((sync) => [sync.step, sync.conversations?.length]), [[0, undefined], [1, 6]]);
  const conversations = syncs[1]!.conversations!;
  for (const conversation of conversations) {
    assert.deepEqual(conversation.messages[0], { role: "system", content: SYSTEM });
    assert.deepEqual(conversation.tools, tools);
    assert.ok(!JSON.stringify(conversation).includes("expert_guidance"), "no probe conversation carries the hint");
  }
  // Conversation j stops before assistant turn j mod 2 of its episode: the opening, then after the lookup's result.
  assert.deepEqual(conversations.map((conversation) => conversation.messages.map((message) => message.role).join(" ")), ["system user", "system user assistant tool", "system user", "system user assistant tool", "system user", "system user assistant tool"]);
});

test("a new adapter's LoRA initialisation follows the training seed unless the adapter settings name one", async () => {
  const plain = { hint: false, mechanisms: { hints: { share: 0 }, dynamicSampling: { extraRounds: 0 }, dropInformationTurns: false, toolResultTruncation: { enabled: false } } };
  assert.deepEqual((await run("init-default", plain)).created, [{ seed: 0, rank: 8, name: "init-default" }]);
  assert.deepEqual((await run("init-seeded", { ...plain, baseSeed: 7 })).created, [{ seed: 7, rank: 8, name: "init-seeded" }]);
  assert.deepEqual((await run("init-named", { ...plain, baseSeed: 7, adapterSeed: 3 })).created, [{ seed: 3, rank: 8, name: "init-named" }]);
});
