/**
 * The rollout stage: the base model on the target tasks (with the target's scripted or LLM user) into `store.sqlite`.
 * On a TRACE-mini target, what explains the failed episodes (the expert's designed deficits or anything else) is
 * written to `base/failures.json` as a diagnostic; the analysis never reads it.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { runRollouts, throwIfEpisodesFailed } from "../rollout/rollout-runner.js";
import { miniFailuresLine, summarizeMiniFailures } from "./mini-failures.js";
import type { PipelineContext } from "./pipeline-context.js";
import { rolloutProgressLog } from "./stage-progress.js";
import { loadTargetDomains } from "./target-tasks.js";

/** Runs the base rollouts (the runner itself skips finished episodes); returns a one-line summary. */
export async function runRolloutStage(context: PipelineContext): Promise<string> {
  const { target, model } = context.config;
  const policy = await context.sampler();
  const store = context.openStore(context.run.storeFile);
  const parts: string[] = [];
  try {
    for (const { environment, tasks, makeUser, split, moduleEnvironment } of await loadTargetDomains(context.config)) {
      context.log(`  ${environment.name}: ${split}`);
      const summary = await runRollouts({
        environment,
        tasks,
        trials: target.trials,
        concurrency: target.concurrency,
        store,
        policy,
        makeUser,
        sampling: { temperature: target.temperature, ...(target.maxTokens === undefined ? {} : { maxTokens: target.maxTokens }) },
        baseSeed: target.seed,
        maxSteps: target.maxSteps,
        onProgress: rolloutProgressLog((line) => context.log(line), environment.name),
        metadata: { agentModel: model.servedModelName, user: context.config.target.user, stage: "rollout" },
      });
      const line = `${environment.name}: ${summary.passed}/${summary.finished} passed (${summary.skipped} already done, ${summary.failed} failed)`;
      context.log(`  ${line}`);
      throwIfEpisodesFailed(store, environment.name);
      parts.push(line);
      if (target.kind === "mini" && moduleEnvironment !== undefined) {
        const failures = await summarizeMiniFailures(moduleEnvironment, store.listEpisodes({ environment: environment.name }));
        mkdirSync(context.run.baseDirectory, { recursive: true });
        writeFileSync(path.join(context.run.baseDirectory, "failures.json"), JSON.stringify(failures, null, 2) + "\n");
        context.log(`  failed episodes ${miniFailuresLine(failures)}`);
      }
    }
  } finally {
    store.close();
  }
  return parts.join("; ");
}
