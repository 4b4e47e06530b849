/**
 * SFT through the real path: the hand-written capabilities' solution transcripts tokenized by the worker's chat
 * template (`/tokenize` with messages and tools), assistant-weighted datums, and cross-entropy steps on a tiny
 * checkpoint on CPU; the loss on the transcripts decreases.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { createTokenizeClient } from "../models/tokenize-client.js";
import { CAPABILITY_ENVIRONMENTS } from "../synthesis/environments/index.js";
import { createModuleEnvironment } from "../envs/modules/module-environment.js";
import { nativeModuleRunner } from "../envs/modules/module-runner.js";
import { createTinyCheckpoint } from "../worker/tiny-checkpoint.js";
import { startWorker, type WorkerProcess } from "../worker/worker-process.js";
import { createChatTokenizeClient } from "../models/chat-tokenize-client.js";
import { runSft } from "./run-sft.js";
import { sftDatum } from "./sft-datum.js";
import { successfulSolutionConversations } from "../baselines/consolidation/solution-conversation.js";

const scratch = mkdtempSync(path.join(os.tmpdir(), "trace-sft-"));
let worker: WorkerProcess | undefined;
after(async () => {
  await worker?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

test("SFT on solution transcripts lowers the cross-entropy on a tiny checkpoint", { timeout: 120_000 }, async (t) => {
  const started = performance.now();
  const checkpoint = path.join(scratch, "tiny");
  await createTinyCheckpoint(checkpoint, { seed: 0 });
  worker = await startWorker({ model: checkpoint, servedModelName: "tiny" });
  const environments = await Promise.all(CAPABILITY_ENVIRONMENTS.map(({ module }) => createModuleEnvironment({ runner: nativeModuleRunner(module), seeds: [0] })));
  const conversations = await successfulSolutionConversations(environments);
  const endOfTurn = await createTokenizeClient({ baseUrl: worker.baseUrl, apiKey: worker.apiKey! })("<|im_end|>");
  assert.equal(endOfTurn.length, 1);
  const tokenize = createChatTokenizeClient({ baseUrl: worker.baseUrl, apiKey: worker.apiKey! });
  // The tiny tokenizer spends ~4k tokens on τ²'s policy (over the tiny model's 4096 positions): a short system prompt here.
  const all = await Promise.all(
    conversations.map(({ messages, tools }) =>
      sftDatum({ messages: [{ role: "system", content: "You are a customer service agent." }, ...messages.slice(1)], tools, tokenize, endOfTurnTokenIds: endOfTurn }),
    ),
  );
  // …and the transcripts that fit the tiny model's 4096 positions (tool schemas and outputs are long in tiny-tokenizer tokens).
  const built = all.filter(({ datum }) => datum.tokens.length <= 4000);
  assert.ok(built.length >= 2, `token counts ${all.map(({ datum }) => datum.tokens.length).join("/")}`);
  for (const { datum, weightedTokens } of built) {
    assert.ok(weightedTokens > 0 && weightedTokens < datum.targetTokens.length / 2);
    // every weighted target run ends with the end-of-turn token
    datum.weights!.forEach((weight, index) => {
      if (weight === 1 && datum.weights![index + 1] !== 1) assert.equal(datum.targetTokens[index], endOfTurn[0]);
    });
  }
  const trainer = worker.trainerClient();
  await trainer.createAdapter({ name: "sft", rank: 16, seed: 0 });
  const steps = await runSft({ trainer, adapter: "sft", datums: built.map(({ datum }) => datum), epochs: 6, batchSize: built.length, learningRate: 1e-2 });
  const losses = steps.map((step) => step.loss);
  t.diagnostic(`${built.length} transcripts, ${built.map(({ datum }) => datum.tokens.length).join("/")} tokens, ${built.map(({ weightedTokens }) => weightedTokens).join("/")} weighted; loss per step ${losses.map((loss) => loss.toFixed(3)).join(", ")}; ${((performance.now() - started) / 1000).toFixed(1)} s`);
  assert.equal(steps.length, 6);
  assert.ok(losses.at(-1)! < losses[0]! * 0.9, `loss ${losses.join(", ")}`);
});
