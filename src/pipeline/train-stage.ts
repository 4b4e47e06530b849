/**
 * The train stage: GRPO per capability environment (`runContextGrpo`, iterations by `training.allocation`), checkpoints in `adapters/<capability>/`, and
 * `adapters/<capability>/training.json` when a capability is done (finished capabilities are skipped on resume; an
 * unfinished one resumes from its last checkpoint inside `runGrpo`).
 */
import { capabilityGrpoTarget, capabilityLearningRate, runContextGrpo, type GrpoTrainer } from "./capability-grpo.js";
import { capabilityIterations } from "./capability-iterations.js";
import type { PipelineContext } from "./pipeline-context.js";
import { remainingTime } from "./stage-progress.js";

/** Trains every capability without `training.json`; returns a one-line summary. */
export async function runTrainStage(context: PipelineContext, trainer: GrpoTrainer): Promise<string> {
  const { config, run } = context;
  const environments = run.readEnvironmentIndex().environments;
  const pending = environments.filter((entry) => !run.hasTrainedAdapter(entry.capability));
  const { training } = config;
  const allocation = capabilityIterations(context, environments.map((entry) => entry.capability));
  if (training.allocation === "coverage" && pending.length > 0) context.log(`  iterations by Cov: ${[...allocation].map(([capability, iterations]) => `${capability} ${iterations}`).join(", ")}`);
  const rates = Object.keys(training.learningRates);
  if (rates.length > 0 && pending.length > 0) {
    context.log(`  learning rates: ${environments.map((entry) => `${entry.capability} ${capabilityLearningRate(training, entry.capability)}`).join(", ")}`);
    const unknown = rates.filter((capability) => !environments.some((entry) => entry.capability === capability));
    if (unknown.length > 0) context.log(`  training.learningRates names no environment of this run: ${unknown.join(", ")} (its environments: ${environments.map((entry) => entry.capability).join(", ")})`);
  }
  for (const entry of pending) {
    const iterations = allocation.get(entry.capability) ?? training.iterations;
    const target = await capabilityGrpoTarget(context, entry.capability, await context.environment(entry));
    const store = context.openStore(run.storeFile);
    let seconds = 0;
    let ran = 0;
    try {
      const result = await runContextGrpo({
        context,
        trainer,
        target,
        adapter: entry.capability,
        adaptersDirectory: run.adaptersDirectory,
        store,
        rolloutRetention: training.keepRollouts,
        iterations,
        learningRate: capabilityLearningRate(training, entry.capability),
        onIteration: (metrics) => {
          seconds += metrics.seconds;
          ran += 1;
          context.log(
            `  ${entry.capability} iteration ${metrics.iteration}/${iterations}: reward ${metrics.rewardMean.toFixed(3)} ± ${metrics.rewardStd.toFixed(3)}${metrics.rewardMeanHinted === null ? "" : ` (hinted ${metrics.rewardMeanHinted.toFixed(3)}, plain ${metrics.rewardMeanPlain?.toFixed(3) ?? "-"})`}, groups kept ${metrics.groupsKept}, dropped ${metrics.groupsDropped} in ${metrics.samplingRounds} round(s), turns dropped ${metrics.turnsDropped}, ${metrics.tokens} tokens, ${metrics.seconds.toFixed(1)} s, eta ${remainingTime(ran, ran + iterations - metrics.iteration, seconds)}`,
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
