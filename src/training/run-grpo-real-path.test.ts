/**
 * GRPO and adapter sync through the real path: the Python worker on a tiny CPU checkpoint as trainer and sampler, a
 * hand-written capability environment, the agent loop. Asserts mechanics (metrics, checkpoints, resume, sync, the
 * reference trainer's mechanisms), not learning (that is src/worker/grpo-learning.test.ts).
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { after, before, test } from "node:test";
import { createChatClient, type ChatClient } from "../models/chat-client.js";
import { runEpisode } from "../rollout/agent-loop.js";
import type { Message } from "../spec/message.js";
import type { Task } from "../spec/task.js";
import { AGENT_GREETING } from "../envs/tau2/conversation-rules.js";
import type { Datum, ForwardBackwardRequest, ForwardRequest } from "../worker/trainer-types.js";
import type { Environment } from "../spec/environment.js";
import { openTrajectoryStore } from "../store/trajectory-store.js";
import toolCallingPrecision from "../synthesis/environments/tool-calling-precision.js";
import { createModuleEnvironment, nativeModuleRunner, type ModuleEnvironment } from "../envs/modules/index.js";
import { createInstanceUser } from "../rollout/instance-user.js";
import type { TrainerClient } from "../worker/trainer-client.js";
import { startWorker, type WorkerProcess } from "../worker/worker-process.js";
import { createAdapterSync } from "./adapter-sync.js";
import { probeLogprobs } from "./logprob-probe.js";
import { hintedSystemPrompt, withSystemPrompt } from "./grpo-hints.js";
import { trainingTurns } from "./grpo-turns.js";
import { grpoMetricScope } from "./grpo-metrics-log.js";
import type { GrpoIterationMetrics } from "./grpo-types.js";
import { runGrpo } from "./run-grpo.js";
import { SamplerLogprobMismatchError } from "./sampler-logprob-mismatch-error.js";

const bin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../bin/trace.js");
const scratch = mkdtempSync(path.join(os.tmpdir(), "trace-grpo-real-"));
let worker: WorkerProcess | undefined;
let trainer: TrainerClient;
let chat: ChatClient;
let moduleEnvironment: ModuleEnvironment;

before(async () => {
  const checkpoint = path.join(scratch, "tiny");
  await promisify(execFile)(process.execPath, [bin, "model", "init-tiny", checkpoint, "--seed", "0"]);
  worker = await startWorker({ model: checkpoint, servedModelName: "tiny" });
  trainer = worker.trainerClient();
  chat = createChatClient({ baseUrl: worker.baseUrl, apiKey: worker.apiKey!, model: "tiny", maxRetries: 0, maxConcurrency: 16 });
  moduleEnvironment = await createModuleEnvironment({ runner: nativeModuleRunner(toolCallingPrecision), seeds: [0, 1, 2, 3] });
});

after(async () => {
  await worker?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

/**
 * The random tiny model scores 0 on the real verifier; a reward from the parity of the first reply's token ids makes
 * groups mixed so that the update path (PPO step, sync, probe) runs too.
 */
function parityEnvironment(): Environment {
  return {
    ...moduleEnvironment,
    grade: (_task, messages) => {
      const reply = messages.find((message) => message.role === "assistant" && message.tokens !== undefined);
      const sum = reply?.role === "assistant" ? reply.tokens!.completionTokenIds.reduce((total, token) => total + token, 0) : 1;
      const reward = sum % 2 === 0 ? 1 : 0;
      return { reward, success: reward === 1, breakdown: { parity: reward } };
    },
  };
}

/** No mechanism: the plain GRPO of the first test. */
const PLAIN = { hints: { share: 0 }, dynamicSampling: { extraRounds: 0 }, dropInformationTurns: false, toolResultTruncation: { enabled: false } };

test("runGrpo runs iterations on a capability environment, records metrics and checkpoints, and resumes from the last one", { timeout: 90_000 }, async (t) => {
  const environment = parityEnvironment();
  const store = openTrajectoryStore(path.join(scratch, "store.sqlite"));
  const adaptersDirectory = path.join(scratch, "adapters");
  const common = {
    environment,
    makeUser: (task: Parameters<ModuleEnvironment["instance"]>[0]) => createInstanceUser(moduleEnvironment.instance(task)),
    capability: toolCallingPrecision.capability,
    trainer,
    sampler: chat,
    adaptersDirectory,
    store,
    groups: 2,
    samples: 3,
    maxTokens: 6,
    maxSteps: 2,
    checkpointEvery: 1,
    learningRate: 1e-3,
    mechanisms: PLAIN,
    onIteration: (metrics: GrpoIterationMetrics) => t.diagnostic(JSON.stringify(metrics)),
  };
  const directory = path.join(adaptersDirectory, toolCallingPrecision.capability);

  const first = await runGrpo({ ...common, iterations: 2 });
  assert.equal(first.resumedFrom, 0);
  assert.deepEqual(first.history.map((metrics) => metrics.iteration), [1, 2]);
  for (const metrics of first.history) {
    assert.equal(metrics.episodes, 6);
    assert.equal(metrics.groupsKept + metrics.groupsDropped, 2);
    assert.equal(metrics.normalization, "token-mean");
  }
  assert.ok(existsSync(path.join(directory, "step-0001", "adapter_config.json")));
  assert.ok(existsSync(path.join(directory, "step-0002", "adapter_model.safetensors")));
  assert.ok(existsSync(path.join(directory, "state", "step-0002")));
  assert.ok(!existsSync(path.join(directory, "state", "step-0001")), "older state removed");
  assert.equal(first.finalAdapterPath, path.join(directory, "step-0002"));
  const stepsBefore = (await trainer.listAdapters()).find((adapter) => adapter.name === first.adapter)!.step;
  const updates = first.history.filter((metrics) => metrics.gradNorm !== null).length;
  assert.ok(updates > 0, "at least one iteration had a mixed group and updated the adapter");
  for (const metrics of first.history.filter((iteration) => iteration.gradNorm !== null)) {
    assert.ok(metrics.tokens > 0 && metrics.clipFraction !== null && metrics.approxKl !== null);
    assert.ok(metrics.probeLogprobDifference !== null && metrics.probeLogprobDifference <= 1e-3);
  }
  assert.equal(stepsBefore, updates);
  // Every sampled group is in the store's training episodes, tagged, with the iteration's rewards and kept groups.
  for (const metrics of first.history) {
    const stored = store.training.list({ adapter: first.adapter, iteration: metrics.iteration });
    assert.deepEqual(stored.map((episode) => [episode.group, episode.member]), [[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2]]);
    assert.ok(Math.abs(stored.reduce((sum, episode) => sum + episode.reward!, 0) / 6 - metrics.rewardMean) < 1e-9);
    assert.equal(stored.filter((episode) => episode.kept).length, 3 * metrics.groupsKept);
    assert.ok(stored.every((episode) => episode.capability === toolCallingPrecision.capability && episode.messages!.some((message) => message.role === "assistant" && message.tokens !== undefined)));
  }

  // A crash: the worker lost the adapter. The next call restores it from the state and runs only iteration 3.
  await trainer.deleteAdapter(first.adapter);
  const second = await runGrpo({ ...common, iterations: 3, rolloutRetention: 2 });
  assert.equal(second.resumedFrom, 2);
  assert.deepEqual(second.history.map((metrics) => metrics.iteration), [3]);
  const stepsAfter = (await trainer.listAdapters()).find((adapter) => adapter.name === first.adapter)!.step;
  assert.equal(stepsAfter, stepsBefore + (second.history[0]!.gradNorm === null ? 0 : 1));

  const lines = readFileSync(second.metricsFile, "utf8").trim().split("\n").map((line) => JSON.parse(line) as GrpoIterationMetrics);
  assert.deepEqual(lines.map((metrics) => metrics.iteration), [1, 2, 3]);
  const rows = store.listMetrics({ scope: grpoMetricScope(toolCallingPrecision.capability), name: "rewardMean" });
  assert.deepEqual(rows.map((row) => row.step).sort(), [1, 2, 3]);
  assert.ok(store.listMetrics({ scope: grpoMetricScope(toolCallingPrecision.capability), name: "groupsDropped" }).length === 3);
  assert.ok(existsSync(path.join(directory, "step-0003")));
  assert.deepEqual(store.training.iterations(first.adapter).map((row) => [row.iteration, row.episodes]), [[2, 6], [3, 6]], "retention 2 keeps the last two iterations");
  store.close();
});

test("adapter sync with a vLLM-style sampler loads versioned names, unloads stale ones, and a stale sampler fails the probe", { timeout: 60_000 }, async () => {
  const adapter = "sync-check";
  await trainer.createAdapter({ name: adapter, seed: 3 });
  const step = async () => {
    await trainer.forwardBackward({ adapter, loss: "cross_entropy", datums: [{ tokens: [5, 6, 7, 8], targetTokens: [6, 7, 8, 9] }] });
    return (await trainer.optimStep({ adapter, learningRate: 5e-2 })).step;
  };
  const sync = createAdapterSync({ trainer, adapter, sampler: { client: trainer, directory: path.join(scratch, "versions") }, probe: { chat } });
  const first = await sync.sync(await step());
  assert.equal(first.model, `${adapter}-v1`);
  assert.ok(first.probeDifference !== null && first.probeDifference <= 1e-3, `probe difference ${first.probeDifference}`);
  const second = await sync.sync(await step());
  assert.equal(second.model, `${adapter}-v2`);
  const served = (await trainer.listModels()).map((model) => model.id);
  assert.ok(served.includes(`${adapter}-v2`) && !served.includes(`${adapter}-v1`), served.join(", "));

  // The trainer moves on but the sampler keeps version 2: the probe sees the difference.
  await step();
  await assert.rejects(sync.sync(2), (error: unknown) => error instanceof SamplerLogprobMismatchError && error.model === `${adapter}-v2` && error.maxDifference > 1e-3);
  // A probe on a practice world's conversation with its tools (what bench:probe compares "Say hello." with): the worker
  // sampling the adapter itself is in sync, the stale version 2 is not.
  const task = moduleEnvironment.task("seed-0");
  const conversations = [{ messages: [{ role: "system" as const, content: moduleEnvironment.systemPrompt(task) }, { role: "user" as const, content: moduleEnvironment.instance(task).request }], tools: [...moduleEnvironment.tools(task)] }];
  assert.ok((await probeLogprobs({ chat, trainer, adapter, model: adapter, conversations })) <= 1e-3);
  await assert.rejects(probeLogprobs({ chat, trainer, adapter, model: `${adapter}-v2`, conversations }), SamplerLogprobMismatchError);
});

test("the training context through the worker's template: an unchanged context re-renders to the sampled prompt, a hinted rollout's to the plain one", { timeout: 60_000 }, async () => {
  const task = moduleEnvironment.task("seed-0");
  const instance = moduleEnvironment.instance(task);
  const tools = moduleEnvironment.tools(task);
  const plainPrompt = moduleEnvironment.systemPrompt(task);
  const hintedPrompt = hintedSystemPrompt(plainPrompt, moduleEnvironment.hint!(task)!);
  const play = async (environment: Environment) =>
    (
      await runEpisode({
        environment,
        task,
        policy: chat,
        user: createInstanceUser(instance),
        sampling: { temperature: 1, seed: 5, logprobs: true, returnTokenIds: true, maxTokens: 6 },
        maxSteps: 6,
      })
    ).trajectory.messages;
  const sampledTurns = (messages: readonly Message[]) => messages.flatMap((message, index) => (message.role === "assistant" && message.tokens !== undefined ? [{ index, tokens: message.tokens }] : []));
  const plain = await play(moduleEnvironment);
  const hinted = await play(withSystemPrompt(moduleEnvironment, task, hintedPrompt));
  assert.ok(sampledTurns(plain).length > 0 && sampledTurns(hinted).length > 0);
  for (const { index, tokens } of sampledTurns(plain)) {
    assert.deepEqual(await trainer.tokenizeChat([{ role: "system", content: plainPrompt }, ...plain.slice(0, index)], tools), tokens.promptTokenIds, `turn at ${index} re-renders to its sampled prompt`);
  }
  const [firstHinted] = sampledTurns(hinted);
  assert.ok(firstHinted!.tokens.promptTokenIds.length > sampledTurns(plain)[0]!.tokens.promptTokenIds.length, "the hint is in the sampled prompt");
  const options = { systemPrompt: plainPrompt, tools, dropInformationTurns: false, truncation: { enabled: false, keepTurns: 1, maxCharacters: 200 }, tokenize: trainer.tokenizeChat };
  const swapped = await trainingTurns(hinted, { ...options, sampledSystemPrompt: hintedPrompt });
  assert.ok(swapped.turns.every((turn) => turn.rewritten));
  assert.deepEqual(swapped.turns[0]!.tokens.promptTokenIds, sampledTurns(plain)[0]!.tokens.promptTokenIds, "the same conversation's plain prompt");
  assert.deepEqual(swapped.turns[0]!.tokens.completionTokenIds, firstHinted!.tokens.completionTokenIds, "the completion as sampled");
  const untouched = await trainingTurns(plain, { ...options, sampledSystemPrompt: plainPrompt });
  assert.deepEqual(untouched.turns.map((turn) => turn.tokens), sampledTurns(plain).map((turn) => turn.tokens));
});

test("runGrpo with every reference mechanism on: hinted rollouts trained on the plain prompt, extra rounds, dropped read turns, truncated results", { timeout: 180_000 }, async (t) => {
  // The tiny model never calls tools: its first turn of each episode is given the solution's get_user_details call
  // (its sampled tokens unchanged), so each episode has a read-only turn and a long tool result in later contexts. The
  // adapter sync's probe goes through unchanged.
  const instanceOf = new Map(moduleEnvironment.tasks().map((task) => [moduleEnvironment.instance(task).request, moduleEnvironment.instance(task)]));
  const reading: ChatClient = {
    usage: () => chat.usage(),
    async complete(request) {
      const completion = await chat.complete(request);
      const instance = instanceOf.get(request.messages.find((message) => message.role === "user")?.content ?? "");
      if (instance === undefined || request.messages.some((message) => message.role === "tool")) return completion;
      const read = instance.solution.find((call) => call.name === "get_user_details")!;
      return { ...completion, message: { ...completion.message, tool_calls: [{ id: "read-0", type: "function", function: { name: read.name, arguments: JSON.stringify(read.arguments) } }] } };
    },
  };
  const forwards: Datum[][] = [];
  const updates: Datum[][] = [];
  const recording = new Proxy(trainer, {
    get(target, property, receiver) {
      if (property === "forward") return (request: ForwardRequest) => (forwards.push(request.datums), target.forward(request));
      if (property === "forwardBackward") return (request: ForwardBackwardRequest) => (updates.push(request.datums), target.forwardBackward(request));
      return Reflect.get(target, property, receiver) as unknown;
    },
  });
  const history: GrpoIterationMetrics[] = [];
  const result = await runGrpo({
    environment: parityEnvironment(),
    makeUser: (task) => createInstanceUser(moduleEnvironment.instance(task)),
    capability: "mechanisms",
    trainer: recording,
    sampler: reading,
    adaptersDirectory: path.join(scratch, "mechanism-adapters"),
    iterations: 2,
    groups: 2,
    samples: 2,
    maxTokens: 6,
    maxSteps: 4,
    checkpointEvery: 2,
    learningRate: 1e-3,
    mechanisms: { hints: { share: 0.5 }, dynamicSampling: { extraRounds: 1, minInformativeShare: 1 }, dropInformationTurns: true, toolResultTruncation: { enabled: true, keepTurns: 0, maxCharacters: 20 } },
    onIteration: (metrics) => {
      history.push(metrics);
      t.diagnostic(JSON.stringify(metrics));
    },
  });
  assert.equal(result.history.length, 2);
  for (const metrics of history) {
    assert.equal(metrics.hintedShare, 0.5);
    assert.ok(metrics.rewardMeanHinted !== null && metrics.rewardMeanPlain !== null);
    assert.ok(metrics.samplingRounds === 1 || metrics.samplingRounds === 2);
    assert.equal(metrics.episodes, metrics.samplingRounds * 4);
    assert.equal(metrics.groupsKept + metrics.groupsDropped, metrics.samplingRounds * 2);
    if (metrics.samplingRounds === 1) assert.equal(metrics.groupsKept, 2, "every group informative: no extra round");
    assert.equal(metrics.informativeShare, metrics.groupsKept / (metrics.groupsKept + metrics.groupsDropped));
    assert.ok(metrics.turnsDropped <= metrics.groupsKept * 2);
  }
  const trained = history.filter((metrics) => metrics.gradNorm !== null);
  assert.ok(trained.length > 0, "at least one iteration had a mixed group");
  assert.ok(trained.every((metrics) => metrics.turnsDropped > 0 && metrics.toolResultsTruncated > 0 && metrics.probeLogprobDifference! <= 1e-3));
  // The sync's probe calls forward at the start and after every update; the re-rendered sequences once per update.
  assert.equal(forwards.length, 1 + 2 * trained.length);

  // Every datum starts with the plain first prompt (the common part over the tasks), none with the hinted one.
  const firstPrompt = (task: Task, system: string) =>
    trainer.tokenizeChat([{ role: "system", content: system }, { role: "assistant", content: AGENT_GREETING }, { role: "user", content: moduleEnvironment.instance(task).request }], moduleEnvironment.tools(task));
  const commonPrefix = async (hinted: boolean) => {
    const prompts = await Promise.all(moduleEnvironment.tasks().map((task) => firstPrompt(task, hinted ? hintedSystemPrompt(moduleEnvironment.systemPrompt(task), moduleEnvironment.hint!(task)!) : moduleEnvironment.systemPrompt(task))));
    let length = 0;
    while (prompts.every((prompt) => prompt[length] === prompts[0]![length])) length += 1;
    return prompts[0]!.slice(0, length);
  };
  const plainPrefix = await commonPrefix(false);
  const hintedPrefix = await commonPrefix(true);
  assert.ok(plainPrefix.length > 0 && hintedPrefix.length > 0);
  const startsWith = (tokens: readonly number[], prefix: readonly number[]) => prefix.every((token, index) => tokens[index] === token);
  for (const datum of updates.flat()) {
    assert.ok(startsWith(datum.tokens, plainPrefix));
    assert.ok(!startsWith(datum.tokens, hintedPrefix), "no datum carries the hint");
  }
});
