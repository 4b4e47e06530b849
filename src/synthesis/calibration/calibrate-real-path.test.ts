/**
 * Calibration through the real path: the Python worker on a tiny CPU checkpoint samples every episode, batching the
 * requests in flight together. With each episode's own sampling seed a calibration reads the same rewards whether its
 * episodes run one at a time or eight at once, and other seeds read others (before the seeds, the worker drew one at
 * random per request, and the TRACE-mini CPU table changed from run to run).
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { after, before, test } from "node:test";
import { createChatClient, type ChatClient } from "../../models/chat-client.js";
import { nativeModuleRunner } from "../../envs/modules/module-runner.js";
import type { CapabilityModule } from "../../envs/modules/capability-module.js";
import toolCallingPrecision from "../environments/tool-calling-precision.js";
import { startWorker, type WorkerProcess } from "../../worker/worker-process.js";
import { calibrateModule } from "./calibrate-module.js";

const bin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../bin/trace.js");
const scratch = mkdtempSync(path.join(os.tmpdir(), "trace-calibrate-real-"));
let worker: WorkerProcess | undefined;
let chat: ChatClient;

before(async () => {
  const checkpoint = path.join(scratch, "tiny");
  await promisify(execFile)(process.execPath, [bin, "model", "init-tiny", checkpoint, "--seed", "0"]);
  worker = await startWorker({ model: checkpoint, servedModelName: "tiny" });
  chat = createChatClient({ baseUrl: worker.baseUrl, apiKey: worker.apiKey!, model: "tiny", maxRetries: 0, maxConcurrency: 16 });
});

after(async () => {
  await worker?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

/**
 * The random tiny model never solves the real verifier; this one rewards the parity of the replies' length, so every
 * reward is a function of the sampled text and a calibration's groups say which texts were sampled.
 */
const parityModule: CapabilityModule = {
  ...toolCallingPrecision,
  verify: (input) => {
    const reward = input.replies.join("").length % 2 === 0 ? 1 : 0;
    return { reward, success: reward === 1, breakdown: { parity: reward } };
  },
};

test("a calibration reads the same rewards one episode at a time and eight at once, and other seeds read others", { timeout: 120_000 }, async () => {
  const runner = nativeModuleRunner(parityModule);
  const calibrate = (concurrency: number, samplingSeedStart: number) =>
    calibrateModule({ runner, policy: chat, seeds: [0, 1, 2, 3], samples: 4, concurrency, samplingSeedStart, maxSteps: 2, sampling: { temperature: 1, maxTokens: 24 } });
  const alone = await calibrate(1, 500);
  const batched = await calibrate(8, 500);
  assert.deepEqual(batched.groups, alone.groups);
  const rewards = alone.groups.flatMap((group) => group.rewards);
  assert.ok(rewards.includes(0) && rewards.includes(1), `the parity reward varies with the text: ${JSON.stringify(rewards)}`);
  const other = await calibrate(8, 900);
  assert.notDeepEqual(other.groups, alone.groups);
});
