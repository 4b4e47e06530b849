/**
 * The SFT consolidation baseline of `trace compare`: one adapter trained by cross-entropy on the capability
 * environments' ground-truth solutions (the transcripts graded 1 that fit the model's positions), as many as the
 * rollout budget allows (each counts as one training episode), saved to `compare/seed-N/sft/adapter/`. With no
 * transcript to train on, the method is the base model (noted in its result).
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { createRolloutBudget } from "../../baselines/budget/rollout-budget.js";
import { createChatTokenizeClient } from "../../models/chat-tokenize-client.js";
import { runSft } from "../../training/run-sft.js";
import { sftDatum } from "../../training/sft-datum.js";
import { successfulSolutionConversations } from "../../baselines/consolidation/solution-conversation.js";
import { createTokenizeClient } from "../../models/tokenize-client.js";
import type { CompareSetup, MethodOutcome } from "../compare-setup.js";
import { capabilityTrainingEnvironment } from "../../pipeline/capability-grpo.js";

/** `max_position_embeddings` of a Hugging Face checkpoint directory, when it says. */
function modelMaxPositions(directory: string): number | undefined {
  const file = path.join(directory, "config.json");
  if (!existsSync(file)) return undefined;
  const value = (JSON.parse(readFileSync(file, "utf8")) as { max_position_embeddings?: unknown }).max_position_embeddings;
  return typeof value === "number" ? value : undefined;
}

export async function runSftMethod(setup: CompareSetup): Promise<MethodOutcome> {
  const { context } = setup;
  const { config } = context;
  const settings = config.compare!.sft;
  const budget = createRolloutBudget({ limit: setup.budgetLimit });
  const environments = await Promise.all(setup.capabilities.map(({ capability, runner }) => capabilityTrainingEnvironment(context, capability, runner)));
  // Interleave the capabilities so that a budget cut keeps them balanced.
  const byEnvironment = await Promise.all(environments.map((environment) => successfulSolutionConversations([environment])));
  const interleaved = Array.from({ length: Math.max(0, ...byEnvironment.map((list) => list.length)) }, (_, row) => byEnvironment.flatMap((list) => (list[row] === undefined ? [] : [list[row]]))).flat();
  const name = `s${setup.seed}-sft`;
  const adapterPath = path.join(setup.directory, "sft", "adapter");
  const worker = await context.worker();
  const endOfTurn = await createTokenizeClient({ baseUrl: worker.baseUrl, ...(worker.apiKey === undefined ? {} : { apiKey: worker.apiKey }) })("<|im_end|>");
  const tokenize = createChatTokenizeClient({ baseUrl: worker.baseUrl, ...(worker.apiKey === undefined ? {} : { apiKey: worker.apiKey }) });
  const maxPositions = modelMaxPositions(config.model.path);
  // Transcripts longer than the model's positions cannot be trained on: skipped, and not charged.
  const datums = [];
  let tooLong = 0;
  for (const conversation of interleaved) {
    if (datums.length >= budget.limit) break;
    const { datum } = await sftDatum({ messages: conversation.messages, tools: conversation.tools, tokenize, endOfTurnTokenIds: endOfTurn });
    if (maxPositions === undefined || datum.tokens.length <= maxPositions) datums.push(datum);
    else tooLong += 1;
  }
  budget.charge("training", datums.length);
  const notes = [`${datums.length} solution transcripts (of ${interleaved.length}; ${tooLong} longer than the model's ${maxPositions ?? "?"} positions skipped)`];
  if (datums.length === 0) {
    context.log(`    ${name}: no solution transcript fits the model's ${maxPositions} positions: the method is the base model`);
    return { snapshots: [], budget: budget.summary(), notes: [...notes, "nothing to train on: evaluated as the base model"] };
  }
  if (!existsSync(path.join(adapterPath, "adapter_config.json"))) {
    const trainer = worker.trainerClient();
    if ((await trainer.listAdapters()).some((held) => held.name === name)) await trainer.deleteAdapter(name);
    await trainer.createAdapter({ name, rank: config.training.rank, seed: setup.seed });
    const steps = await runSft({ trainer, adapter: name, datums, epochs: settings.epochs, batchSize: settings.batchSize, learningRate: settings.learningRate });
    context.log(`    ${name}: ${datums.length} transcripts, loss ${steps[0]?.loss.toFixed(3)} → ${steps.at(-1)?.loss.toFixed(3)} in ${steps.length} steps`);
    await trainer.saveAdapter({ adapter: name, path: adapterPath });
  }
  return { snapshots: [{ episodes: datums.length, policy: { kind: "model", model: `${name}-final`, adapterPath } }], budget: budget.summary(), notes };
}
