/**
 * TRACE in `trace compare`: one GRPO adapter per capability environment (the pipeline's own adapters for seed 0 when
 * the run trained them with that seed; fresh ones under `compare/seed-N/trace/` otherwise), routed per task by the
 * run's routing decisions (iterations per capability by `training.allocation`). Snapshot k uses each capability's
 * checkpoint at the k-th share of its own iterations.
 */
import path from "node:path";
import { createRolloutBudget } from "../../baselines/budget/rollout-budget.js";
import { capabilityGrpoTarget, capabilityLearningRate } from "../../pipeline/capability-grpo.js";
import { capabilityIterations } from "../../pipeline/capability-iterations.js";
import type { CompareSetup, MethodOutcome, Snapshot } from "../compare-setup.js";
import { checkpointAt, trainWithinBudget, type AdapterCheckpoint } from "../grpo-snapshots.js";
import { describeMerge, mergeAdaptersInto, mergeMethodLabel, routingMergeSettings } from "../../pipeline/serve-adapter.js";
import { MERGED_ADAPTERS_ROUTE } from "../../routing/routing-option.js";

/** Trains (or resumes, or reuses) every capability adapter of the seed; returns each one's worker name and checkpoints. */
export async function traceAdapters(
  setup: CompareSetup,
  budget = createRolloutBudget({ limit: setup.budgetLimit }),
): Promise<{ capability: string; name: string; iterations: number; checkpoints: AdapterCheckpoint[] }[]> {
  const { context } = setup;
  const { config, run } = context;
  const allocation = capabilityIterations(context, setup.capabilities.map((entry) => entry.capability));
  const adapters = [];
  for (const { capability, runner } of setup.capabilities) {
    // The pipeline's train stage ran runGrpo with seed 0 and the capability as the adapter's name: reuse it.
    const reuse = setup.seed === 0 && run.hasTrainedAdapter(capability);
    const adaptersDirectory = reuse ? run.adaptersDirectory : path.join(setup.directory, "trace");
    const name = reuse ? capability : `s${setup.seed}-${capability}`;
    const iterations = allocation.get(capability) ?? config.training.iterations;
    const checkpoints = await trainWithinBudget({
      context,
      trainer: setup.trainer,
      target: await capabilityGrpoTarget(context, capability, runner),
      name,
      adaptersDirectory,
      iterations,
      seed: setup.seed,
      budget,
      learningRate: capabilityLearningRate(config.training, capability),
    });
    adapters.push({ capability, name, iterations, checkpoints });
  }
  return adapters;
}

export async function runTraceMethod(setup: CompareSetup): Promise<MethodOutcome> {
  const { training } = setup.context.config;
  const budget = createRolloutBudget({ limit: setup.budgetLimit });
  const adapters = await traceAdapters(setup, budget);
  const perIteration = training.groups * training.samples;
  // With multi-part requests routed to the merged adapters, each snapshot merges its own checkpoints (no rollouts).
  const mergedRoute = setup.context.run.readRoutingFile().options.some((option) => option.capability === MERGED_ADAPTERS_ROUTE);
  const snapshots: Snapshot[] = [];
  for (const [index, fraction] of setup.fractions.entries()) {
    let episodes = 0;
    const chosen: Record<string, { model: string; adapterPath: string }> = {};
    for (const adapter of adapters) {
      const checkpoint = checkpointAt(adapter.checkpoints, Math.round(fraction * adapter.iterations));
      if (checkpoint === null) continue;
      episodes += checkpoint.episodes ?? checkpoint.iteration * perIteration;
      chosen[adapter.capability] = { model: `${adapter.name}-i${checkpoint.iteration}`, adapterPath: checkpoint.adapterPath };
    }
    const sources = Object.values(chosen);
    if (mergedRoute && sources.length === 1) chosen[MERGED_ADAPTERS_ROUTE] = sources[0]!;
    if (mergedRoute && sources.length >= 2) {
      const name = `s${setup.seed}-trace-merged-${index}`;
      const adapterPath = path.join(setup.directory, "trace", "merged", `snapshot-${index}`);
      await mergeAdaptersInto(setup.context, name, sources, adapterPath, routingMergeSettings(setup.context.config));
      chosen[MERGED_ADAPTERS_ROUTE] = { model: `${name}-final`, adapterPath };
    }
    snapshots.push({ episodes, policy: { kind: "routed", adapters: chosen } });
  }
  const settings = routingMergeSettings(setup.context.config);
  const merged = mergedRoute ? `; multi-part requests to each snapshot's adapters merged (${mergeMethodLabel(settings)}, ${describeMerge(settings, adapters.length)})` : "";
  return { snapshots, budget: budget.summary(), notes: [`${adapters.length} capability adapters: ${adapters.map((adapter) => adapter.name).join(", ")}${merged}`] };
}
