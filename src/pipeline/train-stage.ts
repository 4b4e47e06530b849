/**
 * Stage 4, train: GRPO per capability environment (part C's `runGrpo`), checkpoints in `adapters/<capability>/`, and
 * `adapters/<capability>/training.json` when a capability is done (finished capabilities are skipped on resume; an
 * unfinished one resumes from its last checkpoint inside `runGrpo`).
 */
import { createModuleEnvironment } from "../envs/modules/module-environment.js";
import { createInstanceUser } from "../rollout/instance-user.js";
import type { RunGrpoOptions, RunGrpoResult } from "../training/grpo-types.js";
import type { PipelineContext } from "./pipeline-context.js";
import { remainingTime } from "./stage-progress.js";
import type { ResolvedPipelineConfig } from "./pipeline-config.js";

/** The `training` section as runGrpo options (what the train stage and `trace compare` share). */
export function grpoSettings(training: ResolvedPipelineConfig["training"]): Pick<
  RunGrpoOptions,
  "adapterConfig" | "groups" | "samples" | "learningRate" | "temperature" | "concurrency" | "checkpointEvery" | "maxTokens" | "maxSteps"
> {
  return {
    adapterConfig: { rank: training.rank },
    groups: training.groups,
    samples: training.samples,
    learningRate: training.learningRate,
    temperature: training.temperature,
    concurrency: training.concurrency,
    checkpointEvery: training.checkpointEvery,
    ...(training.maxTokens === undefined ? {} : { maxTokens: training.maxTokens }),
    ...(training.maxSteps === undefined ? {} : { maxSteps: training.maxSteps }),
  };
}

/** Seeds 0 … n − 1 of a capability environment used for training. */
export function trainingSeeds(count: number): number[] {
  return Array.from({ length: count }, (_, seed) => seed);
}

/** GRPO orchestration: `runGrpo` from src/training. */
export type GrpoTrainer = (options: RunGrpoOptions) => Promise<RunGrpoResult>;

/** The runGrpo `sync` option for an external policy sampler (none when the worker samples). */
export async function syncOf(context: PipelineContext, adapter: string): Promise<Pick<RunGrpoOptions, "sync">> {
  const sync = await context.adapterSync(adapter);
  return sync === undefined ? {} : { sync };
}

/** Trains every capability without `training.json`; returns a one-line summary. */
export async function runTrainStage(context: PipelineContext, trainer: GrpoTrainer): Promise<string> {
  const { config, run } = context;
  const pending = run.readEnvironmentIndex().environments.filter((entry) => !run.hasTrainedAdapter(entry.capability));
  const { training } = config;
  for (const entry of pending) {
    const worker = await context.worker();
    const environment = await createModuleEnvironment({
      runner: await context.environment(entry),
      seeds: trainingSeeds(training.seeds),
      name: `synthetic-${entry.capability}`,
    });
    const store = context.openStore(run.storeFile);
    let seconds = 0;
    let ran = 0;
    try {
      const result = await trainer({
        environment,
        makeUser: (task) => createInstanceUser(environment.instance(task)),
        capability: entry.capability,
        adapter: entry.capability,
        trainer: worker.trainerClient(),
        sampler: await context.sampler(entry.capability),
        ...(await syncOf(context, entry.capability)),
        ...grpoSettings(training),
        adaptersDirectory: run.adaptersDirectory,
        store,
        rolloutRetention: training.keepRollouts,
        iterations: training.iterations,
        onIteration: (metrics) => {
          seconds += metrics.seconds;
          ran += 1;
          context.log(
            `  ${entry.capability} iteration ${metrics.iteration}/${training.iterations}: reward ${metrics.rewardMean.toFixed(3)} ± ${metrics.rewardStd.toFixed(3)}, groups kept ${metrics.groupsKept}, dropped ${metrics.groupsDropped}, ${metrics.tokens} tokens, ${metrics.seconds.toFixed(1)} s, eta ${remainingTime(ran, ran + training.iterations - metrics.iteration, seconds)}`,
          );
        },
      });
      if (result.aborted) throw new Error(`training of ${entry.capability} was interrupted`);
      if (result.resumedFrom > 0) context.log(`  ${entry.capability}: resumed from the checkpoint of iteration ${result.resumedFrom}`);
      if (result.finalAdapterPath === null) throw new Error(`training of ${entry.capability} saved no adapter`);
      run.writeTrainedAdapter({
        capability: entry.capability,
        adapterPath: result.finalAdapterPath,
        adapter: result.adapter,
        iterations: result.resumedFrom + result.history.length,
        firstRewardMean: result.history[0]?.rewardMean ?? null,
        lastRewardMean: result.history.at(-1)?.rewardMean ?? null,
        finishedAt: new Date().toISOString(),
      });
    } finally {
      store.close();
    }
  }
  const adapters = run.readTrainedAdapters();
  return `${adapters.length} adapters (${adapters.map((adapter) => adapter.capability).join(", ") || "none"}); ${pending.length} trained now`;
}
