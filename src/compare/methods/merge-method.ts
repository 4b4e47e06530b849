/**
 * The merge consolidation baseline of `trace compare`: the seed's TRACE capability adapters (trained, or reused, by
 * the TRACE method) merged TIES-style into one adapter on the worker (`merge_adapters`: trim, sign election, disjoint
 * mean of the LoRA deltas, refactorised by truncated SVD — a simplification of CORE-TSV), saved under
 * `compare/seed-N/merge/adapter/`. It costs what TRACE costs; nothing more is sampled.
 */
import path from "node:path";
import { createRolloutBudget } from "../../baselines/budget/rollout-budget.js";
import { describeMerge, mergeAdaptersInto } from "../../pipeline/serve-adapter.js";
import type { CompareSetup, MethodOutcome } from "../compare-setup.js";
import { traceAdapters } from "./trace-method.js";

export async function runMergeMethod(setup: CompareSetup): Promise<MethodOutcome> {
  const { context } = setup;
  const budget = createRolloutBudget({ limit: setup.budgetLimit });
  const adapters = await traceAdapters(setup, budget);
  const finals = adapters.flatMap((adapter) => (adapter.checkpoints.length === 0 ? [] : [{ name: `${adapter.name}-i${adapter.checkpoints.at(-1)!.iteration}`, path: adapter.checkpoints.at(-1)!.adapterPath }]));
  const name = `s${setup.seed}-merge`;
  const adapterPath = path.join(setup.directory, "merge", "adapter");
  const notes: string[] = [];
  if (finals.length === 1) {
    return { snapshots: [{ episodes: budget.spent(), policy: { kind: "model", model: finals[0]!.name, adapterPath: finals[0]!.path } }], budget: budget.summary(), notes: ["one capability adapter: nothing to merge"] };
  }
  const settings = context.config.compare?.merge ?? {};
  const merged = await mergeAdaptersInto(
    context,
    name,
    finals.map((adapter) => ({ model: adapter.name, adapterPath: adapter.path })),
    adapterPath,
    settings,
  );
  if (merged !== null) notes.push(`merged ${finals.length} adapters, ${describeMerge(settings, finals.length)} (${JSON.stringify(merged)})`);
  return { snapshots: [{ episodes: budget.spent(), policy: { kind: "model", model: `${name}-final`, adapterPath } }], budget: budget.summary(), notes };
}
