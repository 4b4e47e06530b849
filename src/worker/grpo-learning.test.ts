/**
 * Learning through the real path: TypeScript drives GRPO (sampling with the chat client, PPO steps with the trainer
 * client) on the Python worker, on CPU, and the mean reward climbs from the untrained level to ≥ 0.9.
 *
 * Task: answer with digits; reward = share of the completion's first 8 characters that are digits. The untrained
 * policy writes a digit now and then (10 of ~300 tokens), so groups have reward variance from the first iteration.
 *
 * Checkpoint: the default tiny shape (hidden size 64) with a 300-token vocabulary, so that digits are ~3% of random
 * output.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { after, test } from "node:test";
import { createChatClient } from "../models/chat-client.js";
import type { ChatCompletion } from "../models/chat-types.js";
import type { Message } from "../spec/message.js";
import { runMinimalGrpo } from "../training/minimal-grpo.js";
import { startWorker, type WorkerProcess } from "./worker-process.js";

const bin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../bin/trace.js");
const scratch = mkdtempSync(path.join(os.tmpdir(), "trace-grpo-learning-"));
let worker: WorkerProcess | undefined;
after(async () => {
  await worker?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

const CHARACTERS = 8;
const prompts: Message[][] = [[{ role: "user", content: "Write a number." }], [{ role: "user", content: "Count to ten." }]];

/** Share of the first CHARACTERS characters of the answer that are digits (a short answer scores its missing characters 0). */
function digitReward(completion: ChatCompletion): number {
  const text = [...(completion.message.content ?? "")].slice(0, CHARACTERS);
  return text.filter((character) => character >= "0" && character <= "9").length / CHARACTERS;
}

test("GRPO from TypeScript through the worker raises mean reward from the untrained level to ≥ 0.9 on CPU", { timeout: 420_000 }, async (t) => {
  const started = performance.now();
  const checkpoint = path.join(scratch, "tiny");
  await promisify(execFile)(process.execPath, [bin, "model", "init-tiny", checkpoint, "--vocab-size", "300", "--seed", "0"]);
  worker = await startWorker({ model: checkpoint, servedModelName: "tiny" });
  const trainer = worker.trainerClient();
  const chat = createChatClient({ baseUrl: worker.baseUrl, apiKey: worker.apiKey!, model: "tiny", maxRetries: 0, maxConcurrency: 32 });
  await trainer.createAdapter({ name: "digits", rank: 16, seed: 0 });

  const history = await runMinimalGrpo({
    trainer,
    chat,
    adapter: "digits",
    prompts,
    reward: digitReward,
    groupSize: 16,
    iterations: 30,
    maxTokens: CHARACTERS,
    learningRate: 2e-2,
    temperature: 1,
    seed: 0,
    onIteration: (stats) =>
      t.diagnostic(
        `iteration ${stats.iteration}: mean reward ${stats.meanReward.toFixed(3)} (${stats.groupsTrained}/${prompts.length} groups trained, ` +
          `entropy ${stats.entropy?.toFixed(2) ?? "-"}, grad norm ${stats.gradNorm?.toFixed(2) ?? "-"}, ${stats.seconds.toFixed(1)} s)`,
      ),
    stopWhen: (_stats, done) => done.length >= 2 && done.slice(-2).every((stats) => stats.meanReward >= 0.9),
  });
  const curve = history.map((stats) => Number(stats.meanReward.toFixed(3)));
  t.diagnostic(`mean reward per iteration: ${curve.join(", ")}; ${((performance.now() - started) / 1000).toFixed(0)} s in all`);

  const initial = history[0]!.meanReward;
  const final = history.at(-1)!.meanReward;
  assert.ok(initial < 0.2, `the untrained policy scores low (${initial})`);
  assert.ok(final >= 0.9, `mean reward reached ${final} after ${history.length} iterations: ${curve.join(", ")}`);

  // The base model, sampled the same way, still scores at the untrained level: only the adapter learned.
  const baseSamples = await Promise.all(
    prompts.flatMap((messages) => Array.from({ length: 16 }, (_, index) => chat.complete({ messages, maxTokens: CHARACTERS, temperature: 1, seed: 10_000 + index }))),
  );
  const baseReward = baseSamples.reduce((sum, completion) => sum + digitReward(completion), 0) / baseSamples.length;
  assert.ok(baseReward < 0.2, `the base model still scores low (${baseReward})`);
});
