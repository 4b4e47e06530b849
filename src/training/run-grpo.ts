/**
 * GRPO per capability (DESIGN.md step 4): per iteration G seeds × K rollouts of the current adapter through the agent
 * loop, group advantages (groups without reward variance dropped), token-in / token-out sequences, one PPO
 * forward-backward and AdamW step, an adapter sync, metrics, the sampled groups in the store (training episodes, kept
 * per `rolloutRetention`), and checkpoints that a later call resumes from.
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import type { ChatClient } from "../models/chat-client.js";
import { createConcurrencyLimit } from "../models/concurrency-limit.js";
import { runEpisode, type EpisodeResult } from "../rollout/agent-loop.js";
import type { Message } from "../spec/message.js";
import { createAdapterSync } from "./adapter-sync.js";
import { batchDatums } from "./grpo-data.js";
import { filterGroups, type KeptGroup } from "./grpo-data.js";
import { readCheckpoint, writeCheckpoint, type GrpoCheckpoint } from "./grpo-checkpoint.js";
import { recordIterationMetrics, truncateMetricsFile } from "./grpo-metrics-log.js";
import { planIteration } from "./grpo-schedule.js";
import type { GrpoIterationMetrics, RolloutRetention, RunGrpoOptions, RunGrpoResult } from "./grpo-types.js";
import type { TrajectoryStore } from "../store/trajectory-store.js";
import { buildTrainingSequences, type TrainingSequence } from "./grpo-data.js";
import { positiveInteger } from "../rollout/positive-integer.js";

/** A client that samples `model` whatever the request says. */
function samplingModel(client: ChatClient, model: string): ChatClient {
  return { complete: (request) => client.complete({ ...request, model }), usage: () => client.usage() };
}

function meanAndStd(values: readonly number[]): { mean: number; std: number } {
  if (values.length === 0) return { mean: 0, std: 0 };
  const mean = values.reduce((sum, value) => sum + value, 0) / values.length;
  return { mean, std: Math.sqrt(values.reduce((sum, value) => sum + (value - mean) ** 2, 0) / values.length) };
}

interface SampledEpisode {
  reward: number;
  messages: readonly Message[];
  result: EpisodeResult;
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
  const adapter = options.adapter ?? capability;
  const iterations = positiveInteger("iterations", options.iterations ?? 40);
  const groups = positiveInteger("groups", options.groups ?? 8);
  const samples = positiveInteger("samples", options.samples ?? 8);
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
    await trainer.createAdapter({ ...options.adapterConfig, name: adapter });
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
    const planned = planIteration(environment.tasks(), iteration, groups, samples, baseSeed);
    const episodes = await Promise.all(
      planned.map(({ task, seeds }) =>
        Promise.all(
          seeds.map((seed, trial) =>
            limit.run(async (): Promise<SampledEpisode> => {
              const result = await runEpisode({
                environment,
                task,
                policy,
                user: options.makeUser(task),
                sampling: { temperature: options.temperature ?? 1, seed, logprobs: true, returnTokenIds: true, ...(options.maxTokens === undefined ? {} : { maxTokens: options.maxTokens }) },
                trial,
                ...(options.maxSteps === undefined ? {} : { maxSteps: options.maxSteps }),
              });
              if (result.error !== undefined) erroredEpisodes += 1;
              return { reward: result.trajectory.reward?.reward ?? 0, messages: result.trajectory.messages, result };
            }),
          ),
        ),
      ),
    );
    if (isAborted()) break;

    const rewards = episodes.flat().map((episode) => episode.reward);
    const { kept, dropped } = filterGroups(
      episodes.map((group) => group.map((episode) => episode.reward)),
      options.advantageEpsilon,
    );
    if (store !== undefined && retention !== "none") storeSampledGroups(store, { adapter, capability, iteration, episodes, kept, samplerModel: synced.model, retention });
    const sequences: TrainingSequence[] = kept.flatMap(({ group, advantages }) => episodes[group]!.flatMap((episode, member) => buildTrainingSequences(episode.messages, advantages[member]!)));
    const batch = batchDatums(sequences, normalization);
    const { mean, std } = meanAndStd(rewards);
    const metrics: GrpoIterationMetrics = {
      iteration,
      rewardMean: mean,
      rewardStd: std,
      episodes: rewards.length,
      erroredEpisodes,
      groupsKept: kept.length,
      groupsDropped: dropped.length,
      sequences: sequences.length,
      tokens: batch.tokens,
      normalization,
      loss: null,
      clipFraction: null,
      approxKl: null,
      entropy: null,
      gradNorm: null,
      probeLogprobDifference: null,
      seconds: 0,
    };
    if (batch.tokens > 0) {
      const result = await trainer.forwardBackward({ adapter, loss: "ppo", lossConfig: { clipLow: 1 - clipEpsilon, clipHigh: 1 + clipEpsilon }, datums: batch.datums });
      const step = await trainer.optimStep({ adapter, learningRate: options.learningRate ?? 1e-5, ...(options.maxGradNorm === undefined ? {} : { maxGradNorm: options.maxGradNorm }) });
      Object.assign(metrics, { loss: result.loss, clipFraction: result.metrics.clipFraction, approxKl: result.metrics.approxKl, entropy: result.metrics.entropy, gradNorm: step.gradNorm });
      synced = await sync.sync(iteration);
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
