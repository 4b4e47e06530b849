/**
 * GEPA in `trace compare`: the kept capabilities' descriptions (one component each) optimised as text in the base
 * agent's system prompt on the target's training tasks (even positions for minibatches, odd ones for validation),
 * charged to a rollout ledger of the same limit as TRACE's. The reflection model is the `reflection` role's endpoint, else the base
 * model itself. Snapshot k is the best candidate (mean validation score) found within the k-th share of the budget.
 */
import { createRolloutBudget } from "../../baselines/budget/rollout-budget.js";
import { createTargetEnvironment } from "../../baselines/consolidation/target-grpo.js";
import { createAgentEvaluator } from "../../baselines/gepa/agent-evaluator.js";
import { seedCandidateFromCapabilities } from "../../baselines/gepa/candidate-system-prompt.js";
import type { PoolEntry } from "../../baselines/gepa/candidate-pool.js";
import { runGepa } from "../../baselines/gepa/run-gepa.js";
import { roleClient } from "../../pipeline/endpoints.js";
import { reflectionProposer } from "../../baselines/gepa/text-proposer.js";
import type { Task } from "../../spec/task.js";
import type { CompareSetup, MethodOutcome } from "../compare-setup.js";
import { restrictTasks } from "./single-adapter-grpo.js";

/** The best pool entry discovered within `episodes` (ties to the earlier one). */
export function bestWithin(pool: readonly PoolEntry[], episodes: number): PoolEntry {
  let best = pool[0]!;
  for (const entry of pool) if (entry.discoveredAtBudget <= episodes && entry.meanScore > best.meanScore) best = entry;
  return best;
}

export async function runGepaMethod(setup: CompareSetup): Promise<MethodOutcome> {
  const { context } = setup;
  const { config } = context;
  const budget = createRolloutBudget({ limit: setup.budgetLimit });
  const environment = createTargetEnvironment(setup.domains.map((domain) => ({ name: domain.domain, environment: restrictTasks(domain.environment, domain.tasks), makeUser: domain.makeUser })));
  const tasks = environment.tasks();
  const trainingSet: Task[] = tasks.filter((_, index) => index % 2 === 0);
  const validationSet: Task[] = tasks.filter((_, index) => index % 2 === 1);
  const client = config.roles.reflection === undefined ? await context.sampler() : roleClient(config, "reflection");
  const maxTokens = config.training.maxTokens ?? config.target.maxTokens;
  const result = await runGepa({
    seedCandidate: seedCandidateFromCapabilities(setup.capabilities.map(({ capability, description }) => ({ name: capability, description }))),
    trainingSet,
    validationSet,
    evaluate: createAgentEvaluator({
      environment,
      policy: await context.sampler(),
      user: (task) => environment.makeUser(task),
      sampling: { temperature: config.training.temperature, ...(maxTokens === undefined ? {} : { maxTokens }) },
      concurrency: config.training.concurrency,
    }),
    propose: reflectionProposer({ client, temperature: 1, maxTokens: config.compare?.gepa.reflectionMaxTokens ?? 512 }),
    minibatchSize: config.compare?.gepa.minibatchSize ?? 3,
    budget,
    seed: setup.seed,
    onIteration: (record) => context.log(`    gepa iteration ${record.iteration}: ${record.kind}${record.accepted ? " accepted" : ""}${record.note === undefined ? "" : ` (${record.note})`}, ${record.budgetUsed}/${budget.limit} rollouts`),
  });
  const snapshots = setup.fractions.map((fraction) => {
    const episodes = Math.round(fraction * budget.limit);
    return { episodes: Math.min(episodes, result.budget.used), policy: { kind: "prompt" as const, candidate: bestWithin(result.pool, episodes).candidate } };
  });
  return { snapshots, budget: budget.summary(), notes: [`${result.pool.length} candidates, best validation score ${result.bestScore.toFixed(3)}, stopped by ${result.stopReason}`] };
}
