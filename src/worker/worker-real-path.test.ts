/**
 * The TypeScript side against the real Python worker on a tiny CPU checkpoint made by `trace model init-tiny`: one
 * worker for the whole file. Chat completions go through the project's chat client; trainer calls through the
 * trainer client.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { after, before, describe, test } from "node:test";
import { createChatClient, type ChatClient } from "../models/chat-client.js";
import { ChatRequestError } from "../models/chat-request-error.js";
import type { ChatCompletion } from "../models/chat-types.js";
import type { Message, SampledTokens } from "../spec/message.js";
import { completionDatum } from "./completion-datum.js";
import { createTrainerClient, type TrainerClient } from "./trainer-client.js";
import type { Datum } from "./trainer-types.js";
import { WorkerRequestError } from "./worker-request-error.js";
import { startWorker, type WorkerProcess } from "./worker-process.js";

const bin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../bin/trace.js");
const scratch = mkdtempSync(path.join(os.tmpdir(), "trace-worker-real-"));
const API_KEY = "test-key";
const BASE = "tiny";
const LOGPROB_TOLERANCE = 1e-4;
const messages: Message[] = [{ role: "user", content: "Look up reservation 4WQ150, please." }];

let worker: WorkerProcess | undefined;
let trainer: TrainerClient;
let chat: ChatClient;

const checkpoint = path.join(scratch, "tiny-checkpoint");

before(async () => {
  await promisify(execFile)(process.execPath, [bin, "model", "init-tiny", checkpoint, "--seed", "1"]);
  worker = await startWorker({ model: checkpoint, apiKey: API_KEY, servedModelName: BASE });
  trainer = worker.trainerClient();
  chat = createChatClient({ baseUrl: worker.baseUrl, apiKey: API_KEY, model: BASE, maxRetries: 0, maxConcurrency: 16 });
});

after(async () => {
  await worker?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

function sampled(completion: ChatCompletion): SampledTokens {
  const tokens = completion.message.tokens;
  assert.ok(tokens, "the completion carries prompt and completion token ids with logprobs");
  assert.ok(tokens.completionTokenIds.length > 0);
  return tokens;
}

function complete(model: string, seed: number, maxTokens = 8): Promise<ChatCompletion> {
  return chat.complete({ model, messages, maxTokens, seed, temperature: 1, logprobs: true, returnTokenIds: true });
}

/** The trainer's logprobs of the completion tokens, for the same sequence the sampler produced. */
async function trainerCompletionLogprobs(adapter: string | undefined, tokens: SampledTokens): Promise<number[]> {
  const [logprobs] = await trainer.forward({ adapter, datums: [completionDatum(tokens, 0)] });
  assert.ok(logprobs);
  return logprobs.slice(tokens.promptTokenIds.length - 1);
}

function assertClose(actual: readonly number[], expected: readonly number[], tolerance: number, what: string): void {
  assert.equal(actual.length, expected.length, `${what}: lengths`);
  const worst = Math.max(...actual.map((value, index) => Math.abs(value - expected[index]!)));
  assert.ok(worst <= tolerance, `${what}: largest difference ${worst} > ${tolerance}`);
}

/** A PPO datum on a completion with advantage +1 on each of its tokens (pushes the adapter towards it). */
function reinforce(tokens: SampledTokens): Datum {
  return completionDatum(tokens, 1 / tokens.completionTokenIds.length);
}

/** The pids whose parent is `pid` (Linux /proc). */
function childProcesses(pid: number): number[] {
  return readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        // The field after the parenthesised command name: state, then the parent's pid.
        const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
        return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === pid;
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** Whether process `pid` has ended (or is a zombie, ended but not yet reaped) within a few seconds. */
async function gone(pid: number): Promise<boolean> {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      if (stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z")) return true;
    } catch {
      return true;
    }
    await sleep(100);
  }
  return false;
}

describe("the real worker", () => {
  test("health and /v1/models name the base model; a created adapter is listed as its child", async () => {
    const { accelerator, versions, ...health } = worker!.health;
    assert.deepEqual(health, { status: "ok", model: BASE, device: "cpu", dtype: "float32", worldSize: 1, deterministic: false });
    // The machine the figures come from: the CPU's model and usable cores, and the libraries' versions.
    assert.match(accelerator ?? "", /^.+, \d+ cores$/);
    assert.deepEqual(Object.keys(versions ?? {}).sort(), ["peft", "python", "torch", "transformers"]);
    const created = await trainer.createAdapter({ name: "listed", rank: 4 });
    assert.deepEqual(created.targetModules, ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]);
    assert.ok(created.trainableParameters > 0);
    const models = await trainer.listModels();
    assert.deepEqual(models[0], { id: BASE, root: checkpoint, parent: null }); // as vLLM: the base model's path
    assert.equal(models.find((model) => model.id === "listed")?.parent, BASE); // `root` is left open (vLLM: the adapter's path)
    const adapters = await trainer.listAdapters();
    assert.deepEqual(adapters.find((adapter) => adapter.name === "listed"), { ...created, rank: 4, alpha: 16, step: 0, source: "created" });
    await assert.rejects(trainer.createAdapter({ name: "listed" }), (error: unknown) => WorkerRequestError.isInstance(error) && error.status === 409);
    await trainer.deleteAdapter("listed");
    assert.equal((await trainer.listModels()).some((model) => model.id === "listed"), false);
  });

  test("a fresh adapter samples exactly as the base; sampler logprobs equal trainer logprobs (base and adapter)", async () => {
    await trainer.createAdapter({ name: "fresh", rank: 8 });
    const [base, adapter] = await Promise.all([complete(BASE, 11), complete("fresh", 11)]);
    assert.equal(base.finishReason === "stop" || base.finishReason === "length", true);
    assert.deepEqual(sampled(adapter), sampled(base));
    assert.equal(adapter.message.content, base.message.content);
    assertClose(await trainerCompletionLogprobs(undefined, sampled(base)), sampled(base).completionLogprobs, LOGPROB_TOLERANCE, "base");
    assertClose(await trainerCompletionLogprobs("fresh", sampled(adapter)), sampled(adapter).completionLogprobs, LOGPROB_TOLERANCE, "fresh adapter");
  });

  test("forward_backward (ppo) + optim_step move the adapter, not the base; the sampler follows at once", async () => {
    await trainer.createAdapter({ name: "trained", rank: 8 });
    const before = sampled(await complete("trained", 21));
    const baseBefore = await trainerCompletionLogprobs(undefined, before);
    const result = await trainer.forwardBackward({ adapter: "trained", loss: "ppo", lossConfig: { clipLow: 0.8, clipHigh: 1.2 }, datums: [reinforce(before)] });
    assert.equal(result.tokens, before.completionTokenIds.length);
    assertClose(result.logprobs![0]!.slice(before.promptTokenIds.length - 1), before.completionLogprobs, LOGPROB_TOLERANCE, "forward_backward logprobs");
    assert.ok(Math.abs(result.metrics.meanRatio! - 1) < 1e-4 && result.metrics.approxKl! < 1e-6 && result.metrics.clipFraction === 0);
    assert.ok(result.metrics.entropy > 0);
    const step = await trainer.optimStep({ adapter: "trained", learningRate: 1e-2 });
    assert.equal(step.step, 1);
    assert.ok(step.gradNorm > 0);

    const after = await trainerCompletionLogprobs("trained", before);
    const gain = after.reduce((sum, value) => sum + value, 0) - before.completionLogprobs.reduce((sum, value) => sum + value, 0);
    assert.ok(gain > 0, `the reinforced completion became likelier (gain ${gain})`);
    assertClose(await trainerCompletionLogprobs(undefined, before), baseBefore, 1e-6, "the base is frozen");

    const next = sampled(await complete("trained", 22));
    assertClose(await trainerCompletionLogprobs("trained", next), next.completionLogprobs, LOGPROB_TOLERANCE, "trained adapter");
    assert.equal((await trainer.listAdapters()).find((adapter) => adapter.name === "trained")?.step, 1);
  });

  test("save_adapter writes PEFT files that load back (as a sampler adapter) with the same logprobs; save/load_state resumes", async () => {
    await trainer.createAdapter({ name: "saved", rank: 8, seed: 5 });
    const tokens = sampled(await complete("saved", 31));
    await trainer.forwardBackward({ adapter: "saved", loss: "importance_sampling", datums: [reinforce(tokens)] });
    await trainer.optimStep({ adapter: "saved", learningRate: 1e-2 });

    const adapterDirectory = path.join(scratch, "saved-adapter");
    await trainer.saveAdapter({ adapter: "saved", path: adapterDirectory });
    assert.ok(existsSync(path.join(adapterDirectory, "adapter_model.safetensors")));
    const config = JSON.parse(readFileSync(path.join(adapterDirectory, "adapter_config.json"), "utf8")) as { r: number; peft_type: string };
    assert.deepEqual([config.r, config.peft_type], [8, "LORA"]);

    await trainer.loadLoraAdapter({ loraName: "reloaded", loraPath: adapterDirectory });
    const expected = await trainerCompletionLogprobs("saved", tokens);
    assertClose(await trainerCompletionLogprobs("reloaded", tokens), expected, 1e-6, "reloaded adapter");
    const reloadedSample = sampled(await complete("reloaded", 32));
    assertClose(await trainerCompletionLogprobs("saved", reloadedSample), reloadedSample.completionLogprobs, LOGPROB_TOLERANCE, "sampling the reloaded adapter");
    assert.equal((await trainer.listAdapters()).find((adapter) => adapter.name === "reloaded")?.source, "loaded");
    await trainer.unloadLoraAdapter({ loraName: "reloaded" });
    await assert.rejects(complete("reloaded", 33), (error: unknown) => ChatRequestError.isInstance(error) && error.status === 404);

    const stateDirectory = path.join(scratch, "saved-state");
    await trainer.saveState({ adapter: "saved", path: stateDirectory });
    await trainer.loadState({ adapter: "resumed", path: stateDirectory });
    assert.equal((await trainer.listAdapters()).find((adapter) => adapter.name === "resumed")?.step, 1);
    assertClose(await trainerCompletionLogprobs("resumed", tokens), expected, 1e-6, "resumed adapter");
    // The same update on both (the optimizer state came along) keeps them equal.
    for (const adapter of ["saved", "resumed"]) {
      await trainer.forwardBackward({ adapter, loss: "importance_sampling", datums: [reinforce(tokens)] });
      await trainer.optimStep({ adapter, learningRate: 1e-2 });
    }
    assertClose(await trainerCompletionLogprobs("resumed", tokens), await trainerCompletionLogprobs("saved", tokens), 1e-5, "one more step each");
  });

  test("export_merged writes a checkpoint that a second worker serves with the adapter's logprobs; the first keeps its base", async () => {
    await trainer.createAdapter({ name: "exported", rank: 16, alpha: 32 });
    const tokens = sampled(await complete("exported", 41));
    const datum = completionDatum(tokens, 1);
    const baseBefore = await trainerCompletionLogprobs(undefined, tokens);
    for (let step = 0; step < 3; step += 1) {
      await trainer.forwardBackward({ adapter: "exported", loss: "cross_entropy", datums: [datum] });
      await trainer.optimStep({ adapter: "exported", learningRate: 1e-2 });
    }
    const adapted = await trainerCompletionLogprobs("exported", tokens);
    assert.ok(Math.max(...adapted.map((value, index) => Math.abs(value - baseBefore[index]!))) > 1e-3, "the adapter moved the logprobs");

    const mergedDirectory = path.join(scratch, "exported-merged");
    const written = await trainer.exportMerged({ adapter: "exported", path: mergedDirectory });
    assert.deepEqual(written, { path: path.join(realpathSync(scratch), "exported-merged"), mergedModules: 14 }); // 7 projections × 2 layers
    assert.ok(existsSync(path.join(mergedDirectory, "model.safetensors")) && existsSync(path.join(mergedDirectory, "tokenizer.json")));
    await assert.rejects(trainer.exportMerged({ adapter: "exported", path: mergedDirectory }), (error: unknown) => {
      assert.ok(WorkerRequestError.isInstance(error), String(error));
      assert.deepEqual([error.status, error.param], [409, "path"]);
      return true;
    });
    await assert.rejects(
      trainer.exportMerged({ adapter: "nope", path: path.join(scratch, "never") }),
      (error: unknown) => WorkerRequestError.isInstance(error) && error.status === 404 && error.param === "adapter",
    );
    assertClose(await trainerCompletionLogprobs(undefined, tokens), baseBefore, 1e-6, "the first worker's base is unchanged");

    // The second worker trains deterministically (`worker.deterministic`): /health says so, and on a CPU it computes what a plain worker does.
    const second = await startWorker({ model: mergedDirectory, servedModelName: "merged", extraArguments: ["--deterministic"] });
    try {
      assert.equal(second.health.deterministic, true);
      const [mergedLogprobs] = await second.trainerClient().forward({ datums: [datum] });
      assertClose(mergedLogprobs!.slice(tokens.promptTokenIds.length - 1), adapted, LOGPROB_TOLERANCE, "merged base vs adapter");
    } finally {
      await second.stop();
    }
  });

  test("malformed requests get a 4xx WorkerRequestError naming the field; unknown adapters 404; the worker keeps serving", async () => {
    await trainer.createAdapter({ name: "strict", rank: 2 });
    const refusal = (status: number, param: string | null) => (error: unknown) => {
      assert.ok(WorkerRequestError.isInstance(error), String(error));
      assert.deepEqual([error.status, error.param], [status, param], error.message);
      return true;
    };
    await assert.rejects(trainer.forward({ datums: [{ tokens: [1, 2, 3], targetTokens: [2, 3] }] }), refusal(400, "datums[0].target_tokens"));
    await assert.rejects(trainer.forward({ datums: [{ tokens: [1, 2], targetTokens: [2, 1_000_000] }] }), refusal(400, "datums[0].target_tokens[1]"));
    await assert.rejects(trainer.forward({ datums: [] }), refusal(400, "datums"));
    await assert.rejects(
      trainer.forwardBackward({ adapter: "strict", loss: "ppo", datums: [{ tokens: [1, 2], targetTokens: [2, 3], advantages: [1, 1] }] }),
      refusal(400, "datums[0].sampling_logprobs"),
    );
    await assert.rejects(
      trainer.forwardBackward({ adapter: "strict", loss: "cross_entropy", datums: [{ tokens: [1, 2], targetTokens: [2, 3], weights: [1] }] }),
      refusal(400, "datums[0].weights"),
    );
    await assert.rejects(trainer.forwardBackward({ adapter: "strict", loss: "hinge" as "ppo", datums: [{ tokens: [1], targetTokens: [2] }] }), refusal(400, "loss"));
    await assert.rejects(trainer.optimStep({ adapter: "strict", learningRate: -1 }), refusal(400, "learning_rate"));
    await assert.rejects(trainer.createAdapter({ name: "bad", targetModules: ["no_such_proj"] }), refusal(400, "target_modules"));
    await assert.rejects(trainer.createAdapter({ name: "has space" }), refusal(400, "name"));
    await assert.rejects(trainer.createAdapter({ name: "zero-rank", rank: 0 }), refusal(400, "rank"));

    await assert.rejects(trainer.optimStep({ adapter: "missing" }), refusal(404, "adapter"));
    await assert.rejects(trainer.forwardBackward({ adapter: "missing", loss: "cross_entropy", datums: [{ tokens: [1], targetTokens: [2] }] }), refusal(404, "adapter"));
    await assert.rejects(trainer.forward({ adapter: "missing", datums: [{ tokens: [1], targetTokens: [2] }] }), refusal(404, "adapter"));
    await assert.rejects(trainer.deleteAdapter("missing"), refusal(404, "name"));
    await assert.rejects(trainer.saveAdapter({ adapter: "missing", path: path.join(scratch, "nothing") }), refusal(404, "adapter"));
    await assert.rejects(trainer.unloadLoraAdapter({ loraName: "missing" }), (error: unknown) => WorkerRequestError.isInstance(error) && error.status === 404);
    await assert.rejects(complete("missing", 1), (error: unknown) => ChatRequestError.isInstance(error) && error.status === 404);

    const url = `${worker!.baseUrl}/trainer/forward`;
    const headers = { authorization: `Bearer ${API_KEY}`, "content-type": "application/json" };
    const notJson = await fetch(url, { method: "POST", headers, body: "{not json" });
    assert.equal(notJson.status, 400);
    const streamed = await fetch(`${worker!.baseUrl}/chat/completions`, { method: "POST", headers, body: JSON.stringify({ model: BASE, messages, stream: true }) });
    assert.equal(streamed.status, 400);
    assert.match(((await streamed.json()) as { error: { message: string } }).error.message, /stream/);

    assert.equal((await trainer.health()).status, "ok");
    assert.ok((await complete(BASE, 2)).message.tokens);
  });

  test("the bearer token is enforced on every route but /health", async () => {
    const anonymous = createTrainerClient({ baseUrl: worker!.baseUrl });
    const wrong = createTrainerClient({ baseUrl: worker!.baseUrl, apiKey: "wrong" });
    assert.equal((await anonymous.health()).status, "ok");
    for (const client of [anonymous, wrong]) {
      await assert.rejects(client.listModels(), (error: unknown) => WorkerRequestError.isInstance(error) && error.status === 401);
      await assert.rejects(client.createAdapter({ name: "intruder" }), (error: unknown) => WorkerRequestError.isInstance(error) && error.status === 401);
    }
    const wrongChat = createChatClient({ baseUrl: worker!.baseUrl, apiKey: "wrong", model: BASE, maxRetries: 0 });
    await assert.rejects(wrongChat.complete({ messages, maxTokens: 2 }), (error: unknown) => ChatRequestError.isInstance(error) && error.status === 401);
    assert.equal((await trainer.listModels()).some((model) => model.id === "intruder"), false);
  });

  test("gpus: 2 starts the worker under torchrun (two CPU ranks over gloo): it trains as one process does, and stop ends every rank", async () => {
    const pair = await startWorker({ model: checkpoint, apiKey: API_KEY, servedModelName: BASE, gpus: 2, extraArguments: ["--device", "cpu"] });
    let ranks: number[] = [];
    try {
      assert.equal(pair.health.worldSize, 2);
      ranks = childProcesses(pair.pid);
      assert.equal(ranks.length, 2, "torchrun runs one process per rank");
      const datums = await Promise.all([31, 32, 33].map(async (seed) => reinforce(sampled(await complete(BASE, seed)))));
      const twoRanks = pair.trainerClient();
      const results = [];
      for (const client of [trainer, twoRanks]) {
        await client.createAdapter({ name: "split", rank: 4, seed: 9 });
        const result = await client.forwardBackward({ adapter: "split", loss: "ppo", lossConfig: { clipLow: 0.8, clipHigh: 1.2 }, datums });
        const step = await client.optimStep({ adapter: "split", learningRate: 1e-2 });
        results.push({ result, step });
      }
      const [one, two] = results as [(typeof results)[0], (typeof results)[0]];
      assert.equal(two.result.tokens, one.result.tokens);
      assert.ok(Math.abs(two.result.loss - one.result.loss) <= 1e-4 * Math.max(1, Math.abs(one.result.loss)), `loss ${two.result.loss} vs ${one.result.loss}`);
      const [oneLogprobs, twoLogprobs] = [one.result.logprobs, two.result.logprobs];
      assert.ok(oneLogprobs !== undefined && twoLogprobs !== undefined, "forward_backward returns logprobs unless asked not to");
      oneLogprobs.forEach((row, index) => assertClose(twoLogprobs[index]!, row, LOGPROB_TOLERANCE, `datum ${index} logprobs`));
      assert.ok(Math.abs(two.step.gradNorm / one.step.gradNorm - 1) < 1e-3, `grad norm ${two.step.gradNorm} vs ${one.step.gradNorm}`);
    } finally {
      await pair.stop();
    }
    for (const rank of ranks) assert.equal(await gone(rank), true, `rank process ${rank} ended with the worker`);
  });

  test("merge_adapters: a linear merge of two adapters is exact at the summed rank; a merge needs two known sources", async () => {
    await trainer.createAdapter({ name: "merge-one", rank: 2 });
    await trainer.createAdapter({ name: "merge-two", rank: 3 });
    const merged = await trainer.mergeAdapters({ name: "merged-linear", sources: ["merge-one", "merge-two"], weights: [0.5, 0.5] });
    assert.equal(merged.rank, 5);
    assert.ok(merged.modules > 0 && merged.maxRelativeError < 1e-6);
    const ties = await trainer.mergeAdapters({ name: "merged-ties", sources: ["merge-one", "merge-two"], method: "ties", density: 0.5, rank: 2 });
    assert.equal(ties.method, "ties");
    await assert.rejects(trainer.mergeAdapters({ name: "lonely", sources: ["merge-one"] }), (error: unknown) => WorkerRequestError.isInstance(error) && error.param === "sources");
    await assert.rejects(trainer.mergeAdapters({ name: "ghost", sources: ["merge-one", "nope"] }), (error: unknown) => WorkerRequestError.isInstance(error) && error.status === 404);
  });
});
