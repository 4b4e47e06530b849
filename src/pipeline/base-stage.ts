/**
 * The base stage (TRACE-mini targets with `model.sft`): the base agent the rest of the run improves. The scripted expert
 * (with its documented deficits) plays episodes on demonstration seeds disjoint from every training and evaluation
 * seed (a `practiceShare` of them in the practice worlds); a tokenizer is trained on their text with a tiny random
 * checkpoint (`init-tiny --corpus`), unless `initialCheckpoint` names a checkpoint to continue from; one high-rank LoRA
 * adapter learns the demonstrations by cross-entropy through the trainer API; the adapter is merged into the weights
 * and exported as the run's base checkpoint (`model.path`). With `refresh`, more epochs follow on fresh demonstrations
 * (the seeds right after the first block), once the tiny model has learned to copy identifiers from the repeated ones.
 * Demonstrations are kept in `base/demonstrations.jsonl` and reused on a rerun, SFT resumes after its last finished
 * epoch (`base/sft-state/`), and a run whose base checkpoint exists skips the stage.
 */
import { createHash } from "node:crypto";
import { createReadStream, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import pLimit from "p-limit";
import { createChatClient, type ChatClient } from "../models/chat-client.js";
import { createChatTokenizeClient } from "../models/chat-tokenize-client.js";
import { runSft, scheduledLearningRate } from "../training/run-sft.js";
import { createModuleSdk } from "../envs/modules/module-sdk.js";
import { sftDatum } from "../training/sft-datum.js";
import { countSampledIdentifiers, createScriptedExpert, DEFAULT_EXPERT_DEFICITS, measureMechanics, MINI_CAPABILITY_MODULES, sameAction, unseenIdentifiers, miniTargetModule, NO_EXPERT_DEFICITS, type MechanicsReport, type MiniFamily } from "../envs/mini/index.js";
import { runEpisode, type SamplingOptions } from "../rollout/agent-loop.js";
import { createTokenizeClient } from "../models/tokenize-client.js";
import type { AssistantMessage, Message } from "../spec/message.js";
import type { ToolSpec } from "../spec/tool-spec.js";
import type { Datum } from "../worker/trainer-types.js";
import { createModuleEnvironment, seedTaskId } from "../envs/modules/module-environment.js";
import { createInstanceUser } from "../rollout/instance-user.js";
import { atDifficulty, nativeModuleRunner, type ModuleRunner } from "../envs/modules/module-runner.js";
import { createTinyCheckpoint } from "../worker/tiny-checkpoint.js";
import { startWorker } from "../worker/worker-process.js";
import type { PipelineContext } from "./pipeline-context.js";
import { PipelineConfigError } from "./pipeline-config-error.js";
import { correctionSeedStart, demonstrationSeedCount, workerServeArguments } from "./pipeline-config.js";

/** One demonstration: the conversation (system prompt first), the tools offered, and its grade. */
export interface Demonstration {
  seed: number;
  messages: Message[];
  tools: readonly ToolSpec[];
  reward: number;
}

/** What `base/sft.json` records. */
export interface BaseModelRecord {
  demonstrations: number;
  /** Share of demonstrations the environment graded as solved (the expert's measured success rate). */
  expertSuccessRate: number;
  deficits: Record<string, number>;
  seeds: { start: number; count: number };
  /** The refresh epochs' fresh demonstrations (seeds right after `seeds`), when configured. */
  refresh?: { demonstrations: number; epochs: number; learningRate: number; expertSuccessRate: number };
  losses: number[];
  tokens: number;
  seconds: number;
  /** Whether the worker trained under PyTorch's deterministic algorithms (`worker.deterministic`, from its `/health`). */
  deterministic?: boolean;
  /** SHA-256 of the merged `model.safetensors`: two trainings of one recipe and seed compare by it. */
  weightsSha256?: string;
  /**
   * Tail averaging (`model.sft.averageLastEpochs`): the epochs whose adapters were averaged into the base, the merged
   * adapter's rank, and the truncation's largest relative error over the projections (0: the mean exactly).
   */
  average?: { epochs: number[]; rank: number; maxRelativeError: number };
  /** The rounds of corrections after the epochs (`model.sft.corrections`), when configured. */
  corrections?: { learningRate: number; temperature: number; epochs: number; states: "all" | "copying"; rounds: CorrectionRound[] };
  /** Mechanics of the trained base on held-out flawless demonstrations (`src/envs/mini/mechanics.ts`). */
  mechanics?: MechanicsReport & { seeds: { start: number; count: number } };
}

function readDemonstrations(file: string): Demonstration[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as Demonstration);
}

/** The target world a demonstration is played in: its task families and step limit (the run's `target`). */
export interface DemonstrationWorld {
  families: readonly MiniFamily[];
  maxSteps?: number;
}

/**
 * Episodes on `seeds`, each played by `policyFor(seed)` (with its sampling, if any): in the target world, except for the
 * seeds that `practiceShare` sends to a practice world (one of `MINI_CAPABILITY_MODULES`, at a level drawn from its
 * difficulty levels; the draw is a function of the seed alone, so a rerun plays the same worlds).
 */
async function playEpisodes(world: DemonstrationWorld, seeds: readonly number[], practiceShare: number, policyFor: (seed: number) => { policy: ChatClient; sampling?: SamplingOptions }): Promise<Demonstration[]> {
  const sdk = createModuleSdk();
  // Seeds grouped by world: "target", or a practice module's capability and level.
  const groups = new Map<string, { runner: ModuleRunner; seeds: number[] }>();
  const add = (key: string, runner: () => ModuleRunner, seed: number) => {
    const group = groups.get(key) ?? { runner: runner(), seeds: [] };
    group.seeds.push(seed);
    groups.set(key, group);
  };
  for (const seed of seeds) {
    const random = sdk.random(seed ^ 0x5bd1e995);
    if (practiceShare > 0 && random.next() < practiceShare) {
      const module = random.pick(MINI_CAPABILITY_MODULES);
      const level = module.difficulty === undefined ? undefined : random.int(0, module.difficulty.levels - 1);
      add(`${module.capability}@${level ?? "-"}`, () => atDifficulty(nativeModuleRunner(module), level), seed);
    } else add("target", () => nativeModuleRunner(miniTargetModule([...world.families])), seed);
  }
  const played = new Map<number, Demonstration>();
  // Several episodes in flight: a model policy answers over HTTP (the scripted expert answers at once either way).
  const limit = pLimit(32);
  for (const group of groups.values()) {
    const environment = await createModuleEnvironment({ runner: group.runner, seeds: group.seeds, name: "mini-service-demonstrations", ...(world.maxSteps === undefined ? {} : { maxSteps: world.maxSteps }) });
    await Promise.all(
      group.seeds.map((seed) =>
        limit(async () => {
          const task = environment.task(seedTaskId(seed));
          const { policy, sampling } = policyFor(seed);
          const result = await runEpisode({ environment, task, policy, user: createInstanceUser(environment.instance(task)), ...(sampling === undefined ? {} : { sampling }) });
          played.set(seed, { seed, messages: [{ role: "system", content: environment.systemPrompt(task) }, ...result.trajectory.messages], tools: environment.tools(task), reward: result.trajectory.reward?.reward ?? 0 });
        }),
      ),
    );
  }
  // In seed order, as they were asked for.
  return seeds.map((seed) => played.get(seed)!);
}

/** The scripted expert's episodes on `seeds`, with `deficits` drawn per episode (`playEpisodes`' worlds). */
function playDemonstrations(world: DemonstrationWorld, seeds: readonly number[], deficits: Record<string, number>, practiceShare = 0): Promise<Demonstration[]> {
  return playEpisodes(world, seeds, practiceShare, (seed) => ({ policy: createScriptedExpert({ deficits, seed }) }));
}

/** Whether two assistant turns are the same kind of move: a call of the same tool, or both a reply. */
function sameKind(left: AssistantMessage, right: AssistantMessage): boolean {
  return (left.tool_calls?.[0]?.function.name ?? null) === (right.tool_calls?.[0]?.function.name ?? null);
}

/** What one round of corrections (`model.sft.corrections`) played and labelled. */
export interface CorrectionRound {
  episodes: number;
  /** Share of the base's own episodes the environment graded as solved. */
  successRate: number;
  /** States the base reached (its assistant turns), each labelled with the expert's action: one datum each. */
  states: number;
  /** Of those, the states where the base had not done what the labelling expert would. */
  disagreements: number;
  /** The states trained on: all of them, or those `states: "copying"` keeps. */
  trained: number;
  losses: number[];
}

/**
 * One round of corrections: `policy` plays `seeds` (sampled at `temperature`), and each state it reached becomes a
 * datum whose context is its own conversation and whose target is the labelling expert's next action there — with
 * `states` "all", the expert of that seed with `deficits` (drawn as its demonstration would have drawn them), every
 * state kept; with "copying", the flawless expert, only the states where the policy wrote an unseen identifier and the
 * expert makes the same kind of move.
 */
export async function correctionDatums(options: {
  world: DemonstrationWorld;
  seeds: readonly number[];
  practiceShare: number;
  deficits: Record<string, number>;
  policy: ChatClient;
  temperature: number;
  maxTokens: number;
  toDatum: (messages: readonly Message[], tools: readonly ToolSpec[]) => Promise<Datum>;
  /** `model.sft.corrections.states`. */
  states: "all" | "copying";
}): Promise<{ datums: Datum[]; round: Omit<CorrectionRound, "losses"> }> {
  const played = await playEpisodes(options.world, options.seeds, options.practiceShare, (seed) => ({ policy: options.policy, sampling: { temperature: options.temperature, maxTokens: options.maxTokens, seed } }));
  const limit = pLimit(8);
  let disagreements = 0;
  const labelled = await Promise.all(
    played.flatMap((episode) => {
      // "copying" corrects ids alone: the flawless expert labels, and only a move of the kind it would make is kept, so
      // no decision is taught (with the deficits' draws it would also teach, say, cancelling an order it saw delivered).
      const expert = createScriptedExpert({ deficits: options.states === "copying" ? { ...NO_EXPERT_DEFICITS } : options.deficits, seed: episode.seed });
      const firstUser = episode.messages.findIndex((message) => message.role === "user");
      return episode.messages.flatMap((message, index) => {
        if (message.role !== "assistant" || index < firstUser) return [];
        return [
          limit(async () => {
            const context = episode.messages.slice(0, index);
            const { message: label } = await expert.complete({ messages: context, tools: [...episode.tools] });
            if (!sameAction(message, label)) disagreements += 1;
            if (options.states === "copying" && !(unseenIdentifiers(context, message).length > 0 && sameKind(message, label))) return undefined;
            return options.toDatum([...context, label], episode.tools);
          }),
        ];
      });
    }),
  );
  const datums = labelled.filter((datum): datum is Datum => datum !== undefined);
  return { datums, round: { episodes: played.length, successRate: played.filter((episode) => episode.reward === 1).length / Math.max(1, played.length), states: labelled.length, disagreements, trained: datums.length } };
}

/**
 * What `measureCheckpointMechanics` reads: held-out demonstrations (count, first seed, task families, steps, tokens an
 * answer), the model's own sampled episodes a seed and their temperature, and the worker's interpreter.
 */
export interface CheckpointMechanicsOptions {
  demonstrations: number;
  seedStart: number;
  families: readonly MiniFamily[];
  maxSteps: number;
  maxTokens: number;
  samples: number;
  temperature: number;
  python?: string;
}

/**
 * `trace model mechanics`' defaults, which the shipped base's figures were read with: 100 held-out demonstrations from
 * seed 1,012,000 (after its 12,000 SFT seeds) in the shipped configurations' three task families, 20 steps and 128
 * tokens an answer, and 4 own episodes a seed sampled at temperature 1 (GRPO's).
 */
export const HELD_OUT_MECHANICS_DEFAULTS: Readonly<Omit<CheckpointMechanicsOptions, "python">> = {
  demonstrations: 100,
  seedStart: 1_012_000,
  families: ["precondition", "payment", "composite"],
  maxSteps: 20,
  maxTokens: 128,
  samples: 4,
  temperature: 1,
};

/**
 * The mechanics of the model a worker serves as `model`, on `count` held-out demonstrations of a flawless expert
 * (seeds `start` …), greedy, `maxTokens` per answer (`src/envs/mini/mechanics.ts`).
 */
export async function measureHeldOutMechanics(options: {
  world: DemonstrationWorld;
  baseUrl: string;
  apiKey?: string;
  model: string;
  start: number;
  count: number;
  maxTokens: number;
  /** The model's own episodes on the same seeds, `samples` per seed at `temperature` (episode seed `seed × samples + trial`, as calibration samples), where identifier copying is counted again. */
  sampled?: { samples: number; temperature: number };
}): Promise<MechanicsReport & { seeds: { start: number; count: number } }> {
  const seeds = Array.from({ length: options.count }, (_, index) => options.start + index);
  const held = await playDemonstrations(options.world, seeds, { ...NO_EXPERT_DEFICITS });
  const client = createChatClient({ baseUrl: options.baseUrl, model: options.model, maxRetries: 1, maxConcurrency: 16, timeoutMs: 600_000, ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }) });
  const report = await measureMechanics({ client, demonstrations: held, maxTokens: options.maxTokens });
  const sampling = options.sampled !== undefined && options.sampled.samples > 0 ? options.sampled : undefined;
  const sampled = sampling === undefined ? undefined : countSampledIdentifiers(await sampleOwnEpisodes(options.world, seeds, client, sampling.samples, sampling.temperature, options.maxTokens), sampling.temperature);
  return { ...report, ...(sampled === undefined ? {} : { sampled }), seeds: { start: options.start, count: held.length } };
}

/** A checkpoint directory's mechanics (`measureHeldOutMechanics`) on a worker of its own, stopped at the end. */
export async function measureCheckpointMechanics(directory: string, options: CheckpointMechanicsOptions = HELD_OUT_MECHANICS_DEFAULTS): Promise<MechanicsReport & { seeds: { start: number; count: number } }> {
  const worker = await startWorker({ model: directory, servedModelName: "base", ...(options.python === undefined ? {} : { python: options.python }) });
  try {
    return await measureHeldOutMechanics({
      world: { families: options.families, maxSteps: options.maxSteps },
      baseUrl: worker.baseUrl,
      ...(worker.apiKey === undefined ? {} : { apiKey: worker.apiKey }),
      model: "base",
      start: options.seedStart,
      count: options.demonstrations,
      maxTokens: options.maxTokens,
      sampled: { samples: options.samples, temperature: options.temperature },
    });
  } finally {
    await worker.stop();
  }
}

/** The model's own episodes in the target world on `seeds`, `samples` each at `temperature`: each conversation, system prompt first. */
async function sampleOwnEpisodes(world: DemonstrationWorld, seeds: readonly number[], policy: ChatClient, samples: number, temperature: number, maxTokens: number): Promise<Message[][]> {
  const episodes: Message[][] = [];
  for (let trial = 0; trial < samples; trial += 1) {
    const played = await playEpisodes(world, seeds, 0, (seed) => ({ policy, sampling: { temperature, maxTokens, seed: seed * samples + trial } }));
    episodes.push(...played.map((episode) => episode.messages));
  }
  return episodes;
}

/** One line of a mechanics report, as the base stage and `trace model mechanics` print it. */
export function mechanicsSummary(report: MechanicsReport): string {
  return `mechanics on ${report.demonstrations} held-out demonstrations (${report.turns} turns): well-formed tool calls ${(100 * report.toolCallValidity).toFixed(1)}% (of ${report.callAttempts} written), identifiers copied exactly ${(100 * report.identifierCopying).toFixed(1)}%, a text reply where a call was due ${report.textAtToolTurns}/${report.toolTurns}, same action as the expert ${((100 * report.sameAction) / Math.max(1, report.turns)).toFixed(1)}%${statusSummary(report)}${sampledSummary(report)}`;
}

/** Identifier copying in the model's own sampled episodes (empty when they were not asked for). */
function sampledSummary(report: MechanicsReport): string {
  const sampled = report.sampled;
  if (sampled === undefined) return "";
  return `; in its own ${sampled.episodes} episodes sampled at temperature ${sampled.temperature}: identifiers copied exactly ${(100 * sampled.identifierCopying).toFixed(1)}% (of ${sampled.identifiers}), episodes writing one not in the conversation ${sampled.episodesWithUnseenIdentifier}/${sampled.episodes}`;
}

/** After a status lookup, the expert's action by whether the order was pending (empty for a report without such turns, or one written before they were counted). */
function statusSummary(report: MechanicsReport): string {
  if (report.afterStatus === undefined) return "";
  const { pending, notPending } = report.afterStatus;
  if (pending.turns + notPending.turns === 0) return "";
  return `; after a status lookup, the expert's action: pending ${pending.same}/${pending.turns}, not pending ${notPending.same}/${notPending.turns}`;
}

/** Builds the base checkpoint when the configuration asks for one and it is missing; returns a one-line summary. */
export async function runBaseStage(context: PipelineContext): Promise<string> {
  const { config } = context;
  const sft = config.model.sft;
  if (existsSync(path.join(config.model.path, "config.json"))) return `base checkpoint present at ${config.model.path}`;
  if (sft === undefined) return "no base SFT configured (the model is used as it is)";
  const directory = context.run.baseDirectory;
  const initial = sft.initialCheckpoint === undefined ? path.join(directory, "init") : path.resolve(sft.initialCheckpoint);
  if (sft.initialCheckpoint !== undefined && !existsSync(path.join(initial, "config.json"))) throw new PipelineConfigError(context.run.configFile, [`model.sft.initialCheckpoint: no checkpoint at ${initial} (config.json missing)`]);
  mkdirSync(directory, { recursive: true });
  const started = Date.now();
  const deficits = { ...DEFAULT_EXPERT_DEFICITS, ...sft.deficits };

  const demonstrationsFile = path.join(directory, "demonstrations.jsonl");
  const total = demonstrationSeedCount(sft);
  let demonstrations = readDemonstrations(demonstrationsFile);
  if (demonstrations.length < total) {
    const done = new Set(demonstrations.map((demonstration) => demonstration.seed));
    const seeds = Array.from({ length: total }, (_, index) => sft.demonstrationSeedStart + index).filter((seed) => !done.has(seed));
    const made = await playDemonstrations(config.target, seeds, deficits, sft.practiceShare);
    demonstrations.push(...made);
    writeFileSync(demonstrationsFile, made.map((demonstration) => JSON.stringify(demonstration)).join("\n") + "\n", { flag: "a" });
  }
  const successRate = (list: readonly Demonstration[]) => list.filter((demonstration) => demonstration.reward === 1).length / list.length;
  const fresh = demonstrations.slice(sft.demonstrations, total);
  demonstrations = demonstrations.slice(0, sft.demonstrations);
  const expertSuccessRate = successRate(demonstrations);
  context.log(`  ${demonstrations.length} expert demonstrations (deficits ${JSON.stringify(deficits)}), expert success ${(100 * expertSuccessRate).toFixed(1)}%${fresh.length > 0 ? ` (+${fresh.length} fresh ones for the refresh epochs)` : ""}`);

  // The tokenizer learns the demonstrations as the model sees them (rendered with the chat template), with merges
  // across words: the fixed system prompt, tool schemas and JSON keys become a few long tokens (≈ 5× shorter sequences).
  if (!existsSync(path.join(initial, "config.json"))) {
    // A new initial checkpoint invalidates any SFT progress made on an earlier one.
    for (const stale of [initial, path.join(directory, "sft-state"), path.join(directory, "sft-snapshots"), path.join(directory, "sft-progress.json")]) rmSync(stale, { recursive: true, force: true });
    await createTinyCheckpoint(initial, config.model.initTiny ?? {}, {
      chatCorpus: demonstrationsFile,
      mergeAcrossWords: true,
      splitDigits: sft.splitDigits,
      ...(config.worker.python === undefined ? {} : { python: config.worker.python }),
    });
  }
  const worker = await startWorker({
    model: initial,
    servedModelName: "base-init",
    extraArguments: workerServeArguments(config.worker),
    gpus: config.worker.gpus,
    startupTimeoutMs: config.worker.startupTimeoutSeconds * 1000,
    ...(config.worker.python === undefined ? {} : { python: config.worker.python }),
  });
  try {
    const endOfTurn = await createTokenizeClient({ baseUrl: worker.baseUrl, ...(worker.apiKey === undefined ? {} : { apiKey: worker.apiKey }) })("<|im_end|>");
    const tokenize = createChatTokenizeClient({ baseUrl: worker.baseUrl, ...(worker.apiKey === undefined ? {} : { apiKey: worker.apiKey }) });
    // Several conversations in flight: the worker tokenizes on its HTTP threads, and each conversation takes a few calls.
    const limit = pLimit(8);
    const toDatums = (list: readonly Demonstration[]) => Promise.all(list.map((demonstration) => limit(async () => (await sftDatum({ messages: demonstration.messages, tools: demonstration.tools, tokenize, endOfTurnTokenIds: endOfTurn })).datum)));
    const datums = await toDatums(demonstrations);
    const freshDatums = await toDatums(fresh);
    const tokens = datums.reduce((sum, datum) => sum + datum.tokens.length, 0);
    context.log(`  ${datums.length} datums, ${tokens} tokens (mean ${(tokens / datums.length).toFixed(0)} per conversation)`);
    const trainer = worker.trainerClient();
    // Resumable: the adapter and optimizer are saved after every epoch with the losses so far.
    const stateDirectory = path.join(directory, "sft-state");
    const progressFile = path.join(directory, "sft-progress.json");
    const progress = existsSync(progressFile) ? (JSON.parse(readFileSync(progressFile, "utf8")) as { epochs: number; losses: number[]; corrections?: CorrectionRound[] }) : { epochs: 0, losses: [] };
    if (progress.epochs > 0) {
      await trainer.loadState({ adapter: "sft", path: stateDirectory });
      context.log(`  sft: resuming after epoch ${progress.epochs}`);
    } else await trainer.createAdapter({ name: "sft", rank: sft.rank, alpha: sft.rank, seed: config.target.seed });
    const losses = [...progress.losses];
    const epochs = sft.epochs + (sft.refresh?.epochs ?? 0);
    const averagedEpochs = sft.averageLastEpochs === undefined ? [] : Array.from({ length: sft.averageLastEpochs }, (_, index) => sft.epochs - sft.averageLastEpochs! + 1 + index);
    const snapshotDirectory = (epoch: number) => path.join(directory, "sft-snapshots", `epoch-${epoch}`);
    // The schedule spans every step of both phases; a resumed run recomputes each step's index from the epochs done.
    const stepsPerEpoch = (list: readonly unknown[]) => Math.ceil(list.length / sft.batchSize);
    const firstStepOf = (epoch: number) => (Math.min(epoch, sft.epochs + 1) - 1) * stepsPerEpoch(datums) + Math.max(0, epoch - 1 - sft.epochs) * stepsPerEpoch(freshDatums);
    const totalSteps = firstStepOf(epochs + 1);
    const learningRate = (peak: number) => (sft.schedule === undefined ? peak : (step: number) => scheduledLearningRate(peak, step, totalSteps, sft.schedule!));
    for (let epoch = progress.epochs + 1; epoch <= epochs; epoch += 1) {
      const refresh = epoch > sft.epochs;
      const list = refresh ? freshDatums : datums;
      const ordered = sft.shuffle ? createModuleSdk().random(config.target.seed * 100_003 + epoch).shuffle(list) : list;
      const steps = await runSft({
        trainer,
        adapter: "sft",
        datums: ordered,
        epochs: 1,
        batchSize: sft.batchSize,
        learningRate: learningRate(refresh && sft.refresh !== undefined ? sft.refresh.learningRate : sft.learningRate),
        firstStep: firstStepOf(epoch),
      });
      losses.push(...steps.map((step) => step.loss));
      context.log(`  sft epoch ${epoch}/${epochs}${refresh ? " (fresh demonstrations)" : ""} (step ${losses.length}): loss ${steps.at(-1)?.loss.toFixed(3)}`);
      // Tail averaging: the adapter after each of the last epochs, kept beside the state so that a resumed run has them.
      if (averagedEpochs.includes(epoch)) await trainer.saveAdapter({ adapter: "sft", path: snapshotDirectory(epoch) });
      await trainer.saveState({ adapter: "sft", path: stateDirectory });
      writeFileSync(progressFile, JSON.stringify({ epochs: epoch, losses }) + "\n");
    }
    // The base is the mean of the snapshots' deltas: each loaded as an adapter, then merged linearly at the SFT rank.
    let average: BaseModelRecord["average"];
    let trained = "sft";
    if (averagedEpochs.length > 0) {
      const snapshotName = (epoch: number) => `sft-epoch-${epoch}`;
      for (const epoch of averagedEpochs) await trainer.loadLoraAdapter({ loraName: snapshotName(epoch), loraPath: snapshotDirectory(epoch) });
      const merged = await trainer.mergeAdapters({ name: "sft-average", sources: averagedEpochs.map(snapshotName), method: "linear", rank: sft.rank });
      trained = "sft-average";
      average = { epochs: averagedEpochs, rank: merged.rank, maxRelativeError: merged.maxRelativeError };
      context.log(`  sft: the adapters after epochs ${averagedEpochs[0]}–${averagedEpochs.at(-1)} averaged (linear merge at rank ${merged.rank}, largest relative truncation error ${merged.maxRelativeError.toExponential(1)})`);
    }
    // Corrections: the base plays fresh seeds itself and learns the expert's action at every state it reached.
    let corrections: BaseModelRecord["corrections"];
    if (sft.corrections !== undefined) {
      corrections = { learningRate: sft.corrections.learningRate ?? sft.learningRate * (sft.schedule?.floor ?? 1), temperature: sft.corrections.temperature ?? config.training.temperature, epochs: sft.corrections.epochs, states: sft.corrections.states, rounds: [...(progress.corrections ?? [])] };
      const policy = createChatClient({ baseUrl: worker.baseUrl, model: "sft", maxRetries: 1, maxConcurrency: 64, timeoutMs: 600_000, ...(worker.apiKey === undefined ? {} : { apiKey: worker.apiKey }) });
      for (let round = corrections.rounds.length + 1; round <= sft.corrections.rounds; round += 1) {
        const start = correctionSeedStart(sft) + (round - 1) * sft.corrections.episodes;
        context.log(`  corrections ${round}/${sft.corrections.rounds}: the base plays ${sft.corrections.episodes} episodes (seeds ${start}–${start + sft.corrections.episodes - 1}) at temperature ${corrections.temperature}, the expert labels every state`);
        const { datums: corrected, round: played } = await correctionDatums({
          world: config.target,
          seeds: Array.from({ length: sft.corrections.episodes }, (_, index) => start + index),
          practiceShare: sft.practiceShare,
          deficits,
          policy,
          temperature: corrections.temperature,
          maxTokens: config.target.maxTokens ?? 128,
          toDatum: async (messages, tools) => (await sftDatum({ messages, tools, tokenize, endOfTurnTokenIds: endOfTurn, lastTurnOnly: true })).datum,
          states: sft.corrections.states,
        });
        const ordered = createModuleSdk().random(config.target.seed * 100_003 + 1_000_000 + round).shuffle(corrected);
        // A round whose states are all left out ("copying", a base that copied every id) trains nothing.
        const steps = ordered.length === 0 ? [] : await runSft({ trainer, adapter: "sft", datums: ordered, epochs: sft.corrections.epochs, batchSize: sft.batchSize, learningRate: corrections.learningRate });
        corrections.rounds.push({ ...played, losses: steps.map((step) => step.loss) });
        context.log(`  corrections ${round}/${sft.corrections.rounds}: the base solved ${(100 * played.successRate).toFixed(1)}% of ${played.episodes} episodes of its own; the expert's action differed at ${played.disagreements} of its ${played.states} states; ${played.trained} trained on (${sft.corrections.states}); ${steps.length === 0 ? "nothing to train" : `loss ${steps[0]!.loss.toFixed(3)} → ${steps.at(-1)!.loss.toFixed(3)}`}`);
        await trainer.saveState({ adapter: "sft", path: stateDirectory });
        writeFileSync(progressFile, JSON.stringify({ epochs, losses, corrections: corrections.rounds }) + "\n");
      }
    }
    // Mechanics apart from task success, on held-out demonstrations of a flawless expert (seeds after every SFT seed).
    let mechanics: BaseModelRecord["mechanics"];
    if (sft.mechanicsDemonstrations > 0) {
      mechanics = await measureHeldOutMechanics({
        world: config.target,
        baseUrl: worker.baseUrl,
        ...(worker.apiKey === undefined ? {} : { apiKey: worker.apiKey }),
        model: trained,
        start: sft.demonstrationSeedStart + total,
        count: sft.mechanicsDemonstrations,
        maxTokens: config.target.maxTokens ?? 128,
        sampled: { samples: sft.mechanicsSamples, temperature: config.training.temperature },
      });
      context.log(`  ${mechanicsSummary(mechanics)}`);
    }
    await trainer.exportMerged({ adapter: trained, path: config.model.path });
    const { deterministic } = worker.health;
    const weightsSha256 = await fileSha256(path.join(config.model.path, "model.safetensors"));
    const record: BaseModelRecord = {
      demonstrations: demonstrations.length,
      expertSuccessRate,
      deficits,
      seeds: { start: sft.demonstrationSeedStart, count: sft.demonstrations },
      ...(sft.refresh === undefined ? {} : { refresh: { demonstrations: fresh.length, epochs: sft.refresh.epochs, learningRate: sft.refresh.learningRate, expertSuccessRate: successRate(fresh) } }),
      losses,
      tokens,
      seconds: (Date.now() - started) / 1000,
      deterministic,
      ...(weightsSha256 === undefined ? {} : { weightsSha256 }),
      ...(average === undefined ? {} : { average }),
      ...(corrections === undefined ? {} : { corrections }),
      ...(mechanics === undefined ? {} : { mechanics }),
    };
    writeFileSync(path.join(directory, "sft.json"), JSON.stringify(record, null, 2) + "\n");
    const mechanicsText = mechanics === undefined ? "" : `, mechanics ${(100 * mechanics.toolCallValidity).toFixed(1)}% well-formed calls / ${(100 * mechanics.identifierCopying).toFixed(1)}% exact ids`;
    return `base agent: SFT on ${demonstrations.length} expert demonstrations (expert success ${(100 * expertSuccessRate).toFixed(1)}%), loss ${losses[0]?.toFixed(3)} → ${losses.at(-1)?.toFixed(3)} in ${losses.length} steps${average === undefined ? "" : ` (the last ${average.epochs.length} epochs' adapters averaged)`}${mechanicsText}, merged into ${config.model.path}${deterministic ? " (deterministic training)" : ""}${weightsSha256 === undefined ? "" : ` (weights sha256 ${weightsSha256.slice(0, 16)})`}`;
  } finally {
    await worker.stop();
  }
}

/** SHA-256 of a file, streamed (a merged checkpoint can be gigabytes); undefined when there is none. */
async function fileSha256(file: string): Promise<string | undefined> {
  if (!existsSync(file)) return undefined;
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}
