/**
 * GRPO and adapter sync through the real path: the Python worker on a tiny CPU checkpoint as trainer and sampler, a
 * hand-written capability environment, the agent loop. Asserts mechanics (metrics, checkpoints, resume, sync), not
 * learning (that is src/worker/grpo-learning.test.ts).
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
import type { Environment } from "../spec/environment.js";
import { openTrajectoryStore } from "../store/trajectory-store.js";
import toolCallingPrecision from "../synthesis/environments/tool-calling-precision.js";
import { createModuleEnvironment, nativeModuleRunner, type ModuleEnvironment } from "../envs/modules/index.js";
import { createInstanceUser } from "../rollout/instance-user.js";
import type { TrainerClient } from "../worker/trainer-client.js";
import { startWorker, type WorkerProcess } from "../worker/worker-process.js";
import { createAdapterSync } from "./adapter-sync.js";
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

test("runGrpo runs iterations on a capability environment, records metrics and checkpoints, and resumes from the last one", { timeout: 90_000 }, async (t) => {
  // The random tiny model scores 0 on the real verifier; a reward from the parity of the first reply's token ids makes
  // groups mixed so that the update path (PPO step, sync, probe) runs too.
  const environment: Environment = {
    ...moduleEnvironment,
    grade: (_task, messages) => {
      const reply = messages.find((message) => message.role === "assistant" && message.tokens !== undefined);
      const sum = reply?.role === "assistant" ? reply.tokens!.completionTokenIds.reduce((total, token) => total + token, 0) : 1;
      const reward = sum % 2 === 0 ? 1 : 0;
      return { reward, success: reward === 1, breakdown: { parity: reward } };
    },
  };
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
});
