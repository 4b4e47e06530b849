/**
 * GRPO per capability (DESIGN.md step 4): per iteration G seeds × K rollouts of the current adapter through the agent
 * loop, group advantages (groups without reward variance dropped), token-in / token-out sequences, one PPO
 * forward-backward and AdamW step, an adapter sync, metrics, the sampled groups in the store (training episodes, kept
 * per `rolloutRetention`), and checkpoints that a later call resumes from. The TRACE reference trainer's mechanisms
 * (`grpo-mechanisms.ts`) apply on top: hinted rollouts, dynamic sampling's extra rounds, dropped information-only turns
 * and truncated earlier tool results; a sequence whose prompt was re-rendered for training takes the trainer's own
 * logprobs as its sampling logprobs, as the reference computes old logprobs.
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import type { ChatClient } from "../models/chat-client.js";
import { createConcurrencyLimit } from "../models/concurrency-limit.js";
import { runEpisode, type EpisodeResult } from "../rollout/agent-loop.js";
import type { Message } from "../spec/message.js";
import type { Task } from "../spec/task.js";
import { createAdapterSync } from "./adapter-sync.js";
import { probeConversations } from "./logprob-probe.js";
import { batchDatums, filterGroups, sequencesOfTurns, withTrainerLogprobs, type KeptGroup, type TrainingSequence } from "./grpo-data.js";
import { readCheckpoint, writeCheckpoint, type GrpoCheckpoint } from "./grpo-checkpoint.js";
import { wantsAnotherRound } from "./grpo-dynamic-sampling.js";
import { hintedMembers, hintedSystemPrompt, withSystemPrompt } from "./grpo-hints.js";
import { parseGrpoMechanisms } from "./grpo-mechanisms.js";
import { recordIterationMetrics, truncateMetricsFile } from "./grpo-metrics-log.js";
import { planIteration, type PlannedGroup } from "./grpo-schedule.js";
import { trainingTurns } from "./grpo-turns.js";
import type { GrpoIterationMetrics, RolloutRetention, RunGrpoOptions, RunGrpoResult } from "./grpo-types.js";
import type { TrajectoryStore } from "../store/trajectory-store.js";
import { positiveInteger } from "../rollout/positive-integer.js";

/** How many of an iteration's episodes the sync probe continues (one per probe of its default 8). */
const PROBE_CONVERSATIONS = 8;

/** A client that samples `model` whatever the request says. */
function samplingModel(client: ChatClient, model: string): ChatClient {
  return { complete: (request) => client.complete({ ...request, model }), usage: () => client.usage() };
}

function meanAndStd(values: readonly number[]): { mean: number; std: number } {
  if (values.length === 0) return { mean: 0, std: 0 };
  const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
  return { mean, std: Math.sqrt(values.reduce((sum, value) => sum + (value - mean) ** 2, 0) / values.length) };
}

function meanOrNull(values: readonly number[]): number | null {
  return values.length === 0 ? null : meanAndStd(values).mean;
}

/** One rollout of a group. */
interface SampledEpisode {
  reward: number;
  messages: readonly Message[];
  /** Sampled with the hint in the system prompt. */
  hinted: boolean;
  result: EpisodeResult;
}

/** One group: its task, the plain system prompt, the hinted one (when some members had it) and the episodes. */
interface SampledGroup {
  task: Task;
  systemPrompt: string;
  hintedPrompt: string | undefined;
  episodes: SampledEpisode[];
}

/** Stores an iteration's sampled groups as training episodes, then drops the iterations retention no longer keeps. */
function storeSampledGroups(
  store: TrajectoryStore,
  sampled: { adapter: string; capability: string; iteration: number; episodes: SampledEpisode[][]; kept: readonly KeptGroup[]; samplerModel: string; retention: RolloutRetention },
): void {
  const advantages = new Map(sampled.kept.map((group) => [group.group, group.advantages]));
  store.training.record(
    sampled.episodes.flatMap((group, groupIndex) =>
      group.map(({ result }, member) => ({
        adapter: sampled.adapter,
        capability: sampled.capability,
        iteration: sampled.iteration,
        group: groupIndex,
        member,
        trajectory: result.trajectory,
        kept: advantages.has(groupIndex),
        advantage: advantages.get(groupIndex)?.[member] ?? null,
        ...(result.error === undefined ? {} : { error: result.error }),
        metadata: { samplerModel: sampled.samplerModel, steps: result.steps, errors: result.errors, durationMs: Math.round(result.durationMs), policyUsage: result.policyUsage },
      })),
    ),
  );
  if (typeof sampled.retention === "number") store.training.deleteBefore(sampled.adapter, sampled.iteration - sampled.retention + 1);
}

/** Runs (or resumes) GRPO up to `iterations` in all; see the module comment and `RunGrpoOptions`. */
export async function runGrpo(options: RunGrpoOptions): Promise<RunGrpoResult> {
  const { environment, trainer, capability, store, signal } = options;
  const mechanisms = parseGrpoMechanisms(options.mechanisms);
  const adapter = options.adapter ?? capability;
  const iterations = positiveInteger("iterations", options.iterations ?? 40);
  const groups = positiveInteger("groups", options.groups ?? 8);
  const samples = positiveInteger("samples", options.samples ?? 16);
  const checkpointEvery = positiveInteger("checkpointEvery", options.checkpointEvery ?? 5);
  const baseSeed = options.baseSeed ?? 0;
  const normalization = options.normalization ?? "token-mean";
  const clipEpsilon = options.clipEpsilon ?? 0.2;
  const limit = createConcurrencyLimit(options.concurrency ?? 8);
  const directory = path.resolve(options.adaptersDirectory, capability);
  const metricsFile = path.join(directory, "metrics.jsonl");
  mkdirSync(directory, { recursive: true });
  const isAborted = () => signal?.aborted === true;

  // Restore the last checkpoint, or start the adapter fresh (or from the given state).
  let checkpoint: GrpoCheckpoint | null = readCheckpoint(directory);
  const resumedFrom = checkpoint?.iteration ?? 0;
  if (checkpoint !== null) await trainer.loadState({ adapter, path: path.join(directory, checkpoint.statePath) });
  else if (options.initialState !== undefined) await trainer.loadState({ adapter, path: path.resolve(options.initialState) });
  else {
    if ((await trainer.listAdapters()).some((held) => held.name === adapter)) await trainer.deleteAdapter(adapter);
    // The LoRA initialisation is drawn from the training seed too (unless adapterConfig names one), so that training
    // seeds differ in every random draw: with one shared initialisation a seed's adapters vary less than they would.
    await trainer.createAdapter({ seed: baseSeed, ...options.adapterConfig, name: adapter });
  }
  truncateMetricsFile(metricsFile, resumedFrom);
  const retention = options.rolloutRetention ?? "all";
  if (typeof retention === "number") positiveInteger("rolloutRetention", retention);
  // The iterations a resume redoes are sampled again; their stored episodes go, as their metrics lines do.
  store?.training.deleteAfter(adapter, resumedFrom);

  const sync = options.sync ?? createAdapterSync({ trainer, adapter, probe: { chat: options.sampler } });
  let synced = await sync.sync(resumedFrom);
  const history: GrpoIterationMetrics[] = [];
  for (let iteration = resumedFrom + 1; iteration <= iterations; iteration += 1) {
    if (isAborted()) break;
    const started = performance.now();
    const policy = samplingModel(options.sampler, synced.model);
    let erroredEpisodes = 0;

    /** The K rollouts of a planned group, the first round(share × K) with the task's hint when it has one. */
    const sampleGroup = async ({ task, seeds }: PlannedGroup): Promise<SampledGroup> => {
      const systemPrompt = environment.systemPrompt(task);
      const hint = mechanisms.hints.share > 0 ? environment.hint?.(task) : undefined;
      const hintedPrompt = hint === undefined ? undefined : hintedSystemPrompt(systemPrompt, hint);
      const hinted = hintedPrompt === undefined ? 0 : hintedMembers(mechanisms.hints.share, seeds.length);
      const hintedEnvironment = hintedPrompt === undefined ? environment : withSystemPrompt(environment, task, hintedPrompt);
      const episodes = await Promise.all(
        seeds.map((seed, trial) =>
          limit.run(async (): Promise<SampledEpisode> => {
            const result = await runEpisode({
              environment: trial < hinted ? hintedEnvironment : environment,
              task,
              policy,
              user: options.makeUser(task),
              sampling: { temperature: options.temperature ?? 1, seed, logprobs: true, returnTokenIds: true, ...(options.maxTokens === undefined ? {} : { maxTokens: options.maxTokens }) },
              trial,
              ...(options.maxSteps === undefined ? {} : { maxSteps: options.maxSteps }),
            });
            if (result.error !== undefined) erroredEpisodes += 1;
            return { reward: result.trajectory.reward?.reward ?? 0, messages: result.trajectory.messages, hinted: trial < hinted, result };
          }),
        ),
      );
      return { task, systemPrompt, hintedPrompt, episodes };
    };

    // Rounds of G groups: the first, then dynamic sampling's extra rounds while too few groups have reward variance.
    const sampled: SampledGroup[] = [];
    let rounds = 0;
    for (let round = 0; ; round += 1) {
      sampled.push(...(await Promise.all(planIteration(environment.tasks(), iteration, groups, samples, baseSeed, round).map(sampleGroup))));
      rounds += 1;
      const informative = filterGroups(sampled.map((group) => group.episodes.map((episode) => episode.reward))).kept.length;
      if (isAborted() || !wantsAnotherRound({ informative, groups, share: mechanisms.dynamicSampling.minInformativeShare, round, extraRounds: mechanisms.dynamicSampling.extraRounds })) break;
      if (options.episodesAllowed !== undefined && (rounds + 1) * groups * samples > options.episodesAllowed()) break;
    }
    if (isAborted()) break;

    const episodes = sampled.flatMap((group) => group.episodes);
    const rewards = episodes.map((episode) => episode.reward);
    const { kept, dropped } = filterGroups(
      sampled.map((group) => group.episodes.map((episode) => episode.reward)),
      options.advantageEpsilon,
    );
    if (store !== undefined && retention !== "none") {
      storeSampledGroups(store, { adapter, capability, iteration, episodes: sampled.map((group) => group.episodes), kept, samplerModel: synced.model, retention });
    }
    let turnsKept = 0;
    let turnsDropped = 0;
    let toolResultsTruncated = 0;
    const sequences: TrainingSequence[] = (
      await Promise.all(
        kept.flatMap(({ group, advantages }) => {
          const { task, systemPrompt, hintedPrompt, episodes: members } = sampled[group]!;
          const readTools = environment.readTools?.(task);
          return members.map((episode, member) =>
            limit.run(async () => {
              const turns = await trainingTurns(episode.messages, {
                systemPrompt,
                sampledSystemPrompt: episode.hinted ? hintedPrompt! : systemPrompt,
                tools: environment.tools(task),
                ...(readTools === undefined ? {} : { readTools: new Set(readTools) }),
                dropInformationTurns: mechanisms.dropInformationTurns,
                truncation: mechanisms.toolResultTruncation,
                tokenize: trainer.tokenizeChat,
              });
              turnsKept += turns.kept;
              turnsDropped += turns.dropped;
              toolResultsTruncated += turns.truncatedToolResults;
              return sequencesOfTurns(turns.turns, advantages[member]!);
            }),
          );
        }),
      )
    ).flat();
    const batch = batchDatums(sequences, normalization);
    const { mean, std } = meanAndStd(rewards);
    const hintedRewards = episodes.filter((episode) => episode.hinted).map((episode) => episode.reward);
    const metrics: GrpoIterationMetrics = {
      iteration,
      rewardMean: mean,
      rewardStd: std,
      episodes: rewards.length,
      erroredEpisodes,
      groupsKept: kept.length,
      groupsDropped: dropped.length,
      samplingRounds: rounds,
      informativeShare: sampled.length === 0 ? 0 : kept.length / sampled.length,
      hintedShare: episodes.length === 0 ? 0 : hintedRewards.length / episodes.length,
      rewardMeanHinted: meanOrNull(hintedRewards),
      rewardMeanPlain: meanOrNull(episodes.filter((episode) => !episode.hinted).map((episode) => episode.reward)),
      turnsKept,
      turnsDropped,
      toolResultsTruncated,
      sequences: sequences.length,
      tokens: batch.tokens,
      normalization,
      loss: null,
      clipFraction: null,
      approxKl: null,
      entropy: null,
      gradNorm: null,
      learningRate: null,
      probeLogprobDifference: null,
      seconds: 0,
    };
    if (batch.tokens > 0) {
      // Re-rendered sequences were never sampled as they stand: the trainer's logprobs (the weights that sampled) replace the sampler's.
      const rewritten = sequences.flatMap((sequence, index) => (sequence.rewritten === true ? [index] : []));
      if (rewritten.length > 0) {
        const logprobs = await trainer.forward({ adapter, datums: rewritten.map((index) => ({ tokens: batch.datums[index]!.tokens, targetTokens: batch.datums[index]!.targetTokens })) });
        rewritten.forEach((index, position) => (batch.datums[index] = withTrainerLogprobs(batch.datums[index]!, logprobs[position]!)));
      }
      // Only the loss and metrics are read: no per-token logprobs back, and only completion tokens (weight ≠ 0) through the output layer.
      const result = await trainer.forwardBackward({ adapter, loss: "ppo", lossConfig: { clipLow: 1 - clipEpsilon, clipHigh: 1 + clipEpsilon }, datums: batch.datums, returnLogprobs: false });
      const learningRate = options.learningRate ?? 1e-5;
      const step = await trainer.optimStep({ adapter, learningRate, ...(options.maxGradNorm === undefined ? {} : { maxGradNorm: options.maxGradNorm }) });
      Object.assign(metrics, { loss: result.loss, clipFraction: result.metrics.clipFraction, approxKl: result.metrics.approxKl, entropy: result.metrics.entropy, gradNorm: step.gradNorm, learningRate });
      // Prefixes of the plain episodes this step trained on (member 0 of each kept group, then member 1, …), for a sync that probes on them.
      // Lazily: only the episodes the conversations are cut from are read.
      const trainedOn = function* () {
        for (let member = 0; member < samples; member += 1) {
          for (const { group } of kept) {
            const { task, systemPrompt, episodes: members } = sampled[group]!;
            const episode = members[member];
            if (episode !== undefined && !episode.hinted) yield { systemPrompt, messages: episode.messages, tools: [...environment.tools(task)] };
          }
        }
      };
      synced = await sync.sync(iteration, probeConversations(trainedOn(), PROBE_CONVERSATIONS));
      metrics.probeLogprobDifference = synced.probeDifference;
    }
    if (iteration % checkpointEvery === 0 || iteration === iterations) checkpoint = await writeCheckpoint(trainer, adapter, directory, iteration);
    metrics.seconds = (performance.now() - started) / 1000;
    recordIterationMetrics(metricsFile, store, capability, metrics);
    history.push(metrics);
    options.onIteration?.(metrics);
  }
  return {
    capability,
    adapter,
    resumedFrom,
    history,
    finalAdapterPath: checkpoint === null ? null : path.join(directory, checkpoint.adapterPath),
    samplerModel: synced.model,
    metricsFile,
    aborted: isAborted(),
  };
}
