/**
 * The route stage: one routing decision per target task (training and evaluation tasks; the request is its first user
 * message) over the trained adapters and "none of these", by the base model's label scores or by retrieval over the
 * capability environments' requests; written to `eval/routing.json` with, for a module target whose instances name
 * their family, the routing accuracy.
 */
import { createRouter } from "../routing/create-router.js";
import { createRetrievalRouter, isMultiPart } from "../routing/retrieval-router.js";
import { defaultLabels } from "../routing/routing-labels.js";
import { MERGED_ADAPTERS_ROUTE, type RoutingDecision, type RoutingOption } from "../routing/routing-option.js";
import { solutionTranscript } from "../routing/solution-transcript.js";
import { createTokenizeClient } from "../models/tokenize-client.js";
import type { Task } from "../spec/task.js";
import { createChatClient } from "../models/chat-client.js";
import { roleClient, roleEndpoint } from "./endpoints.js";
import { PipelineConfigError } from "./pipeline-config-error.js";
import type { CapabilityEnvironmentEntry } from "../run/environment-index.js";
import type { RoutingFile } from "../run/routing-file.js";
import type { PipelineContext } from "./pipeline-context.js";
import { routingAccuracy, type JudgedRoute } from "./routing-summary.js";
import { loadTargetDomains } from "./target-tasks.js";
import { describeMerge, mergeAdaptersInto, mergeMethodLabel, routingMergeSettings } from "./serve-adapter.js";

/** The served name of the merged adapters (multi-part requests); the worker merges them under `${MERGED_MODEL}-source`. */
const MERGED_MODEL = "trace-merged";

/**
 * The routing options of a run: each trained adapter in order, then "none of these" (the base model), then — with
 * `routing.multiPartSimilarity` and two or more adapters — the adapters merged, for multi-part requests. What the
 * router sees of a capability (its example transcript, the retrieval router's example requests) comes from its world
 * at the module's own initial level, whatever level calibration chose for training (`withoutCalibratedLevel`).
 */
async function routingOptions(context: PipelineContext): Promise<RoutingOption[]> {
  const { config, run } = context;
  const environments = new Map(run.readEnvironmentIndex().environments.map((entry) => [entry.capability, entry]));
  const adapters = run.readTrainedAdapters();
  const labels = config.routing.labels ?? defaultLabels(adapters.length + 1);
  if (labels.length !== adapters.length + 1) throw new PipelineConfigError(run.configFile, [`routing.labels: ${labels.length} labels for ${adapters.length + 1} options (${adapters.length} adapters and "none of these")`]);
  const options: RoutingOption[] = [];
  for (const [index, adapter] of adapters.entries()) {
    const entry = environments.get(adapter.capability)!;
    const example = await solutionTranscript(await context.environment(withoutCalibratedLevel(entry)), config.environments.validationSeeds[0]!);
    options.push({ label: labels[index]!, capability: adapter.capability, model: adapter.adapter, description: entry.description, example });
  }
  options.push({ label: labels.at(-1)!, capability: null, model: config.model.servedModelName, description: "", example: "" });
  if (config.routing.multiPartSimilarity !== undefined && adapters.length >= 2) {
    // The next default label after the others' ("E" after A–D), or "M" when the configured labels already use it.
    const next = defaultLabels(adapters.length + 2).at(-1)!;
    options.push({ label: labels.includes(next) ? "M" : next, capability: MERGED_ADAPTERS_ROUTE, model: MERGED_MODEL, description: `A request that asks for several things at once: the capability adapters merged (${mergeMethodLabel(routingMergeSettings(config))}).`, example: "" });
  }
  return options;
}

/**
 * The adapters a run's routing samples: the trained ones, and the merged one when the routing offers it (merged
 * from the trained ones and saved under `routing/merged-adapter/` the first time).
 */
export async function routedAdapters(context: PipelineContext, options: readonly Pick<RoutingOption, "capability" | "model">[]): Promise<{ model: string; adapterPath: string }[]> {
  const trained = context.run.readTrainedAdapters().map((adapter) => ({ model: adapter.adapter, adapterPath: adapter.adapterPath }));
  const merged = options.find((option) => option.capability === MERGED_ADAPTERS_ROUTE);
  if (merged === undefined) return trained;
  const adapterPath = context.run.mergedAdapterDirectory;
  const settings = routingMergeSettings(context.config);
  const report = await mergeAdaptersInto(context, `${merged.model}-source`, trained, adapterPath, settings);
  if (report !== null) context.log(`  merged ${trained.length} adapters for multi-part requests into ${adapterPath} (${describeMerge(settings, trained.length)}; ${mergeMethodLabel(settings)}; largest relative SVD error ${report.maxRelativeError.toFixed(3)})`);
  return [...trained, { model: merged.model, adapterPath }];
}

/** A router over the run's options as the configuration asks. */
export async function createRunRouter(context: PipelineContext): Promise<{ options: readonly RoutingOption[]; describe: string; route(request: string): Promise<RoutingDecision> }> {
  const { config } = context;
  const options = await routingOptions(context);
  if (config.routing.method === "retrieval") {
    const environments = new Map(context.run.readEnvironmentIndex().environments.map((entry) => [entry.capability, entry]));
    const withExamples = [];
    for (const option of options) {
      const entry = option.capability === null ? undefined : environments.get(option.capability);
      // The examples are the module's requests at its own initial level, not at the level calibration chose: the
      // level fits the practice world to the base's reward window, and requests of another level made the router's
      // answers depend on the base (thirty-first session: a multi-step world calibrated one level down made the
      // multi-part rule send 43% of single precondition requests to the merged adapters).
      const runner = entry === undefined ? undefined : await context.environment(withoutCalibratedLevel(entry));
      const examples: string[] = [];
      if (runner !== undefined) for (let seed = 0; seed < config.routing.examples; seed += 1) examples.push((await runner.generate(seed)).request);
      withExamples.push({ ...option, examples });
    }
    const merged = options.find((option) => option.capability === MERGED_ADAPTERS_ROUTE);
    // The merged option has no examples of its own: the sentences decide for it (below).
    const router = createRetrievalRouter({ options: withExamples.filter((option) => option.capability !== MERGED_ADAPTERS_ROUTE) });
    const threshold = config.routing.multiPartSimilarity;
    const route = (request: string): RoutingDecision => {
      if (merged === undefined || threshold === undefined || !isMultiPart(router, request, threshold, config.routing.multiPartRule)) return router.route(request);
      return { label: merged.label, capability: merged.capability, model: merged.model, logprobs: options.map((option) => ({ label: option.label, logprob: option === merged ? 0 : null })), source: "retrieval" };
    };
    const counted = config.routing.multiPartRule === "sentences" ? "two or more sentences" : "sentences of two or more capabilities";
    const multiPart = merged === undefined ? "" : `; a request with ${counted} at similarity ≥ ${threshold} to the merged adapters (${merged.label})`;
    return { options, describe: `retrieval over ${config.routing.examples} requests per capability environment${multiPart}`, route: (request) => Promise.resolve(route(request)) };
  }
  // The `router` role scores the labels with the base model: the worker (default) or an endpoint with /tokenize.
  const endpoint = roleEndpoint(config, "router");
  const worker = endpoint === undefined ? await context.worker() : undefined;
  const baseUrl = endpoint?.url ?? worker!.baseUrl;
  const apiKey = endpoint === undefined ? worker!.apiKey : endpoint.apiKey;
  const key = apiKey === undefined ? {} : { apiKey };
  const chat = endpoint === undefined ? createChatClient({ baseUrl, model: config.model.servedModelName, maxRetries: 1, ...key }) : roleClient(config, "router");
  const tokenize = createTokenizeClient({ baseUrl, ...key });
  const router = await createRouter({ chat, tokenize, options });
  return { options, describe: `labels ${router.options.map((option, index) => `${option.label}=${option.capability ?? "none"} (token ${router.tokenIds[index]})`).join(", ")}`, route: (request) => router.route(request) };
}

/** The `facts.family` of a generated instance, when the module records one. */
function familyOf(facts: Record<string, unknown> | undefined): string | undefined {
  const family = facts?.family;
  return typeof family === "string" ? family : undefined;
}

/** The `facts.needs` of a generated instance (the families a multi-part task exercises), when the module records them. */
function needsOf(facts: Record<string, unknown> | undefined): string[] | undefined {
  const needs = facts?.needs;
  return Array.isArray(needs) && needs.every((need) => typeof need === "string") ? needs : undefined;
}

/** Routes every target task; returns a one-line summary. */
export async function runRouteStage(context: PipelineContext): Promise<string> {
  const { config, run } = context;
  const router = await createRunRouter(context);
  context.log(`  ${router.describe}`);
  const store = context.openStore(run.storeFile);
  const file: RoutingFile = { options: router.options.map(({ example: _example, ...option }) => option), decisions: [] };
  const environments = new Map(run.readEnvironmentIndex().environments.map((entry) => [entry.capability, entry]));
  // The families each option's environment generates (its first 16 seeds; a multi-part practice world has several).
  const optionFamilies = new Map<string, string[]>();
  for (const option of router.options) {
    const entry = option.capability === null ? undefined : environments.get(option.capability);
    const families = new Set<string>();
    if (entry !== undefined) {
      const runner = await context.environment(entry);
      for (let seed = 0; seed < 16; seed += 1) {
        const family = familyOf((await runner.generate(seed)).facts);
        if (family !== undefined) families.add(family);
      }
    }
    optionFamilies.set(option.label, [...families]);
  }
  // The merged adapters are made now, so that every later stage (and `trace serve`) finds them.
  await routedAdapters(context, router.options);
  const judged: JudgedRoute[] = [];
  try {
    for (const domain of await loadTargetDomains(config)) {
      const seen = new Set<string>();
      const all: Task[] = [...domain.tasks, ...domain.evaluationTasks].filter((task) => !seen.has(task.id) && seen.add(task.id) !== undefined);
      for (const task of all) {
        const episode = store.getEpisode({ environment: domain.environment.name, taskId: task.id, trial: 0 });
        const first = episode?.messages?.find((message) => message.role === "user");
        // With τ²'s LLM user the first user message of a task never rolled out is not known yet: the evaluate stage
        // routes it on the conversation itself.
        if (first === undefined && config.target.user === "llm") continue;
        const request = first !== undefined && typeof first.content === "string" ? first.content : domain.request(task);
        const decision = await router.route(request);
        file.decisions.push({ environment: domain.environment.name, taskId: task.id, ...decision });
        const facts = domain.moduleEnvironment?.instance(task).facts;
        const family = familyOf(facts);
        const needs = needsOf(facts);
        if (family !== undefined && domain.evaluationTasks.includes(task)) {
          judged.push({ taskFamily: family, ...(needs === undefined ? {} : { needs }), chosenFamilies: optionFamilies.get(decision.label), ...(decision.capability === MERGED_ADAPTERS_ROUTE ? { chosenMerged: true } : {}) });
        }
      }
    }
  } finally {
    store.close();
  }
  const accuracy = routingAccuracy(judged);
  if (accuracy !== undefined) file.accuracy = accuracy;
  run.writeRoutingFile(file);
  const counts = new Map<string, number>();
  for (const decision of file.decisions) counts.set(decision.capability ?? "base", (counts.get(decision.capability ?? "base") ?? 0) + 1);
  const perFamily = Object.entries(accuracy?.byFamily ?? {}).map(([family, entry]) => `${family} ${entry.correct}/${entry.tasks}`);
  const accuracyText = accuracy === undefined ? "" : `; accuracy on evaluation tasks ${(100 * accuracy.accuracy).toFixed(1)}% (${accuracy.correct}/${accuracy.tasks}${perFamily.length > 1 ? `: ${perFamily.join(", ")}` : ""})`;
  return `${file.decisions.length} tasks routed: ${[...counts].map(([name, count]) => `${name} ${count}`).join(", ")}${accuracyText}`;
}

/** The entry with no calibrated level: its module's worlds at the module's own initial level. */
function withoutCalibratedLevel(entry: CapabilityEnvironmentEntry): CapabilityEnvironmentEntry {
  const { difficulty, ...rest } = entry;
  return difficulty === undefined ? entry : rest;
}
