/**
 * The SFT consolidation baseline of `trace compare`: one adapter trained by cross-entropy on the capability
 * environments' ground-truth solutions (the transcripts graded 1), as many transcripts as the rollout budget allows
 * (each counts as one training episode), saved to `compare/seed-N/sft/adapter/`.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { createRolloutBudget } from "../../baselines/budget/rollout-budget.js";
import { createChatTokenizeClient } from "../../baselines/consolidation/chat-tokenize-client.js";
import { runSft } from "../../baselines/consolidation/run-sft.js";
import { sftDatum } from "../../baselines/consolidation/sft-datum.js";
import { successfulSolutionConversations } from "../../baselines/consolidation/solution-conversation.js";
import { createTokenizeClient } from "../../routing/tokenize-client.js";
import { createModuleEnvironment } from "../../synthesis/sdk/module-environment.js";
import type { CompareSetup, MethodOutcome } from "../compare-setup.js";
import { trainingSeeds } from "./trace-method.js";

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
  const environments = await Promise.all(setup.capabilities.map(({ capability, runner }) => createModuleEnvironment({ runner, seeds: trainingSeeds(config.training.seeds), name: `synthetic-${capability}` })));
  // Interleave the capabilities so that a budget cut keeps them balanced.
  const byEnvironment = await Promise.all(environments.map((environment) => successfulSolutionConversations([environment])));
  const interleaved = Array.from({ length: Math.max(0, ...byEnvironment.map((list) => list.length)) }, (_, row) => byEnvironment.flatMap((list) => (list[row] === undefined ? [] : [list[row]]))).flat();
  const conversations = interleaved.slice(0, budget.limit);
  budget.charge("training", conversations.length);
  const name = `s${setup.seed}-sft`;
  const adapterPath = path.join(setup.directory, "sft", "adapter");
  if (!existsSync(path.join(adapterPath, "adapter_config.json"))) {
    const worker = await context.worker();
    const trainer = worker.trainerClient();
    const endOfTurn = await createTokenizeClient({ baseUrl: worker.baseUrl })("<|im_end|>");
    const tokenize = createChatTokenizeClient({ baseUrl: worker.baseUrl });
    const maxPositions = modelMaxPositions(config.model.path);
    const datums = [];
    for (const conversation of conversations) {
      const { datum } = await sftDatum({ messages: conversation.messages, tools: conversation.tools, tokenize, endOfTurnTokenIds: endOfTurn });
      if (maxPositions === undefined || datum.tokens.length <= maxPositions) datums.push(datum);
    }
    if (datums.length < conversations.length) context.log(`    ${name}: ${conversations.length - datums.length} transcripts longer than the model's ${maxPositions} positions left out`);
    if (datums.length === 0) throw new RangeError(`SFT baseline: every solution transcript is longer than the model's ${maxPositions} positions`);
    if ((await trainer.listAdapters()).some((held) => held.name === name)) await trainer.deleteAdapter(name);
    await trainer.createAdapter({ name, rank: config.training.rank, seed: setup.seed });
    const steps = await runSft({ trainer, adapter: name, datums, epochs: settings.epochs, batchSize: settings.batchSize, learningRate: settings.learningRate });
    context.log(`    ${name}: ${datums.length} transcripts, loss ${steps[0]?.loss.toFixed(3)} → ${steps.at(-1)?.loss.toFixed(3)} in ${steps.length} steps`);
    await trainer.saveAdapter({ adapter: name, path: adapterPath });
  }
  return {
    snapshots: [{ episodes: conversations.length, policy: { kind: "model", model: `${name}-final`, adapterPath } }],
    budget: budget.summary(),
    notes: [`${conversations.length} solution transcripts (of ${interleaved.length})`],
  };
}
