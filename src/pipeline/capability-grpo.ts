/**
 * GRPO as a run does it, for the train stage and for every GRPO method of `trace compare`: a capability's module
 * environment on the training seeds with its instance user, and `runGrpo` with the run's `training` settings on the
 * context's worker (the trainer) and policy sampler, with the adapter sync an external sampler needs.
 */
import { createModuleEnvironment, type ModuleEnvironment } from "../envs/modules/module-environment.js";
import type { ModuleRunner } from "../envs/modules/module-runner.js";
import { createInstanceUser } from "../rollout/instance-user.js";
import type { SimulatedUser } from "../rollout/simulated-user.js";
import type { Environment } from "../spec/environment.js";
import type { Task } from "../spec/task.js";
import type { TrajectoryStore } from "../store/trajectory-store.js";
import { mostEpisodesPerIteration } from "../training/grpo-dynamic-sampling.js";
import type { GrpoMechanisms } from "../training/grpo-mechanisms.js";
import type { GrpoIterationMetrics, RunGrpoOptions, RunGrpoResult } from "../training/grpo-types.js";
import type { ResolvedPipelineConfig } from "./pipeline-config.js";
import type { PipelineContext } from "./pipeline-context.js";

/** GRPO orchestration: `runGrpo` from src/training (tests pass a wrapper). */
export type GrpoTrainer = (options: RunGrpoOptions) => Promise<RunGrpoResult>;

/** The reference trainer's mechanisms (hints, dynamic sampling, turn dropping, truncation) of the `training` section. */
export function grpoMechanisms(training: ResolvedPipelineConfig["training"]): GrpoMechanisms {
  const { hints, dynamicSampling, dropInformationTurns, toolResultTruncation } = training;
  return { hints, dynamicSampling, dropInformationTurns, toolResultTruncation };
}

/** The most episodes one GRPO iteration of the `training` section can sample (dynamic sampling's extra rounds included). */
export function episodesPerIterationAllowance(training: ResolvedPipelineConfig["training"]): number {
  return mostEpisodesPerIteration(training.groups, training.samples, training.dynamicSampling.extraRounds);
}

/** What GRPO trains on: an environment and the simulated user of each of its tasks. */
export interface GrpoTarget {
  environment: Environment;
  makeUser: (task: Task) => SimulatedUser;
}

/** The learning rate of a capability's adapter: `training.learningRates[capability]`, else `training.learningRate`. */
export function capabilityLearningRate(training: ResolvedPipelineConfig["training"], capability: string): number {
  return training.learningRates[capability] ?? training.learningRate;
}

/** The seeds of a capability environment that training draws from: 0 … `training.seeds` − 1. */
export function trainingSeeds(context: PipelineContext): number[] {
  return Array.from({ length: context.config.training.seeds }, (_, seed) => seed);
}

/** A capability's environment as the run trains it: the training seeds, named `synthetic-<capability>`. */
export function capabilityTrainingEnvironment(context: PipelineContext, capability: string, runner: ModuleRunner): Promise<ModuleEnvironment> {
  return createModuleEnvironment({ runner, seeds: trainingSeeds(context), name: `synthetic-${capability}` });
}

/** The capability's training environment with each instance's scripted user. */
export async function capabilityGrpoTarget(context: PipelineContext, capability: string, runner: ModuleRunner): Promise<GrpoTarget> {
  const environment = await capabilityTrainingEnvironment(context, capability, runner);
  return { environment, makeUser: (task) => createInstanceUser(environment.instance(task)) };
}

export interface RunContextGrpoOptions {
  context: PipelineContext;
  trainer: GrpoTrainer;
  target: GrpoTarget;
  /** The adapter's name on the worker and its checkpoint directory under `adaptersDirectory`. */
  adapter: string;
  adaptersDirectory: string;
  iterations: number;
  /** [0] */
  baseSeed?: number;
  store?: TrajectoryStore;
  /** Which iterations' sampled episodes the store keeps (`training.keepRollouts` by default). */
  rolloutRetention?: RunGrpoOptions["rolloutRetention"];
  onIteration?: (metrics: GrpoIterationMetrics) => void;
  signal?: AbortSignal;
  /** The most episodes the current iteration may still sample (a rollout budget's remainder) [no limit]. */
  episodesAllowed?: () => number;
  /** [`training.learningRate`] */
  learningRate?: number;
}

/** Trains (or resumes) one adapter with the run's training settings. */
export async function runContextGrpo(options: RunContextGrpoOptions): Promise<RunGrpoResult> {
  const { context, adapter } = options;
  const { training } = context.config;
  const worker = await context.worker();
  return options.trainer({
    environment: options.target.environment,
    makeUser: options.target.makeUser,
    capability: adapter,
    adapter,
    trainer: worker.trainerClient(),
    sampler: await context.sampler(adapter),
    sync: await context.adapterSync(adapter),
    adapterConfig: { rank: training.rank },
    mechanisms: grpoMechanisms(training),
    groups: training.groups,
    samples: training.samples,
    learningRate: options.learningRate ?? training.learningRate,
    temperature: training.temperature,
    concurrency: training.concurrency,
    checkpointEvery: training.checkpointEvery,
    maxTokens: training.maxTokens,
    maxSteps: training.maxSteps,
    adaptersDirectory: options.adaptersDirectory,
    iterations: options.iterations,
    baseSeed: options.baseSeed,
    store: options.store,
    rolloutRetention: options.rolloutRetention ?? training.keepRollouts,
    onIteration: options.onIteration,
    signal: options.signal,
    ...(options.episodesAllowed === undefined ? {} : { episodesAllowed: options.episodesAllowed }),
  });
}
