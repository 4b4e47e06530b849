/**
 * Stage 5, route: one routing decision per target task (its first user message in the base rollout) over the trained
 * adapters and "none of these", scored by the base model; written to `eval/routing.json`.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { createRouter } from "../routing/create-router.js";
import { defaultLabels } from "../routing/routing-labels.js";
import type { RoutingOption } from "../routing/routing-option.js";
import { solutionTranscript } from "../routing/solution-transcript.js";
import { createTokenizeClient } from "../routing/tokenize-client.js";
import { handWrittenRunner, readEnvironmentIndex } from "./environment-index.js";
import type { PipelineContext } from "./pipeline-context.js";
import { routingFile, type RoutingFile } from "./routing-file.js";
import { loadTargetDomains } from "./target-tasks.js";
import { readTrainedAdapters } from "./train-stage.js";

/** The routing options of a run: each trained adapter in order, then "none of these" (the base model). */
export async function routingOptions(context: PipelineContext): Promise<RoutingOption[]> {
  const { config } = context;
  const environments = new Map(readEnvironmentIndex(config.runDirectory).environments.map((entry) => [entry.capability, entry]));
  const adapters = readTrainedAdapters(config.runDirectory);
  const labels = config.routing.labels ?? defaultLabels(adapters.length + 1);
  if (labels.length !== adapters.length + 1) throw new RangeError(`routing.labels: ${labels.length} labels for ${adapters.length + 1} options (${adapters.length} adapters and "none of these")`);
  const options: RoutingOption[] = [];
  for (const [index, adapter] of adapters.entries()) {
    const entry = environments.get(adapter.capability)!;
    const example = await solutionTranscript(handWrittenRunner(entry.capability, entry.module), config.environments.validationSeeds[0]!);
    options.push({ label: labels[index]!, capability: adapter.capability, model: adapter.adapter, description: entry.description, example });
  }
  options.push({ label: labels.at(-1)!, capability: null, model: config.model.servedModelName, description: "", example: "" });
  return options;
}

/** Routes every target task; returns a one-line summary. */
export async function runRouteStage(context: PipelineContext): Promise<string> {
  const { config } = context;
  const worker = await context.worker();
  const router = await createRouter({ chat: await context.sampler(), tokenize: createTokenizeClient({ baseUrl: worker.baseUrl }), options: await routingOptions(context) });
  context.log(`  labels ${router.options.map((option, index) => `${option.label}=${option.capability ?? "none"} (token ${router.tokenIds[index]})`).join(", ")}`);
  const store = context.openStore("store.sqlite");
  const file: RoutingFile = { options: router.options.map(({ example: _example, ...option }) => option), decisions: [] };
  try {
    for (const { environment, tasks } of loadTargetDomains(config)) {
      for (const task of tasks) {
        const episode = store.getEpisode({ environment: environment.name, taskId: task.id, trial: 0 });
        const first = episode?.messages?.find((message) => message.role === "user");
        const request = first !== undefined && typeof first.content === "string" ? first.content : task.userInstructions;
        file.decisions.push({ environment: environment.name, taskId: task.id, ...(await router.route(request)) });
      }
    }
  } finally {
    store.close();
  }
  mkdirSync(path.dirname(routingFile(config.runDirectory)), { recursive: true });
  writeFileSync(routingFile(config.runDirectory), JSON.stringify(file, null, 2) + "\n");
  const counts = new Map<string, number>();
  for (const decision of file.decisions) counts.set(decision.capability ?? "base", (counts.get(decision.capability ?? "base") ?? 0) + 1);
  return `${file.decisions.length} tasks routed: ${[...counts].map(([name, count]) => `${name} ${count}`).join(", ")}`;
}
