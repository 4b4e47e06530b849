/**
 * GRPO under a shared rollout budget for `trace compare`: runGrpo with the ledger's hooks (each iteration's episodes
 * charged as training; a resumed run charges the iterations it restores), then the saved adapter of every checkpoint
 * (`step-XXXX/`) as the points of the method's budget-vs-score curve.
 */
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { grpoBudgetHooks } from "../baselines/budget/grpo-budget.js";
import type { RolloutBudget } from "../baselines/budget/rollout-budget.js";
import { readCheckpoint } from "../training/grpo-checkpoint.js";
import { episodesThrough } from "../training/grpo-metrics-log.js";
import type { PipelineContext } from "../pipeline/pipeline-context.js";
import { runContextGrpo, type GrpoTarget, type GrpoTrainer } from "../pipeline/capability-grpo.js";

/** A saved adapter after `iteration` iterations. */
export interface AdapterCheckpoint {
  iteration: number;
  adapterPath: string;
  /** Episodes its iterations sampled (metrics.jsonl), when recorded. */
  episodes?: number;
}

export interface BudgetedGrpoOptions {
  context: PipelineContext;
  trainer: GrpoTrainer;
  target: GrpoTarget;
  /** Checkpoint directory name under `adaptersDirectory`, and the adapter's name on the worker. */
  name: string;
  adaptersDirectory: string;
  iterations: number;
  seed: number;
  budget: RolloutBudget;
  /** [`training.learningRate`] */
  learningRate?: number;
}

/** Every `step-XXXX` adapter directory of a GRPO checkpoint directory, by iteration. */
export function adapterCheckpoints(directory: string): AdapterCheckpoint[] {
  if (!existsSync(directory)) return [];
  return readdirSync(directory)
    .filter((entry) => /^step-\d{4}$/.test(entry) && existsSync(path.join(directory, entry, "adapter_config.json")))
    .map((entry) => {
      const iteration = Number(entry.slice(5));
      const episodes = episodesThrough(path.join(directory, "metrics.jsonl"), iteration);
      return { iteration, adapterPath: path.join(directory, entry), ...(episodes === null ? {} : { episodes }) };
    })
    .sort((left, right) => left.iteration - right.iteration);
}

/** Trains (or resumes) one adapter within the budget; returns its checkpoints. */
export async function trainWithinBudget(options: BudgetedGrpoOptions): Promise<AdapterCheckpoint[]> {
  const { context, budget, name } = options;
  const { training } = context.config;
  // An iteration samples G × K episodes, and more with dynamic sampling: the budget is charged what metrics.jsonl
  // recorded, training stops when another first round of G × K no longer fits, and extra rounds stop where the
  // budget ends.
  const directory = path.join(options.adaptersDirectory, name);
  const restored = Math.min(readCheckpoint(directory)?.iteration ?? 0, options.iterations);
  if (restored > 0) budget.charge("training", episodesThrough(path.join(directory, "metrics.jsonl"), restored) ?? restored * training.groups * training.samples);
  if (restored < options.iterations) {
    const hooks = grpoBudgetHooks({
      budget,
      episodesPerIteration: training.groups * training.samples,
      onIteration: (metrics) => context.log(`    ${name} iteration ${metrics.iteration}/${options.iterations}: reward ${metrics.rewardMean.toFixed(3)}, ${budget.spent()}/${budget.limit} rollouts`),
    });
    const result = await runContextGrpo({
      context,
      trainer: options.trainer,
      target: options.target,
      adapter: name,
      adaptersDirectory: options.adaptersDirectory,
      iterations: options.iterations,
      baseSeed: options.seed,
      onIteration: hooks.onIteration,
      signal: hooks.signal,
      episodesAllowed: hooks.episodesAllowed,
      ...(options.learningRate === undefined ? {} : { learningRate: options.learningRate }),
    });
    if (result.aborted && !hooks.exhausted()) throw new Error(`training of ${name} was interrupted`);
  }
  return adapterCheckpoints(directory);
}

/** The latest checkpoint at or before `iteration` (null when none). */
export function checkpointAt(checkpoints: readonly AdapterCheckpoint[], iteration: number): AdapterCheckpoint | null {
  return [...checkpoints].reverse().find((checkpoint) => checkpoint.iteration <= iteration) ?? null;
}
