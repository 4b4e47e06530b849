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
import type { Candidate } from "../../baselines/gepa/candidate.js";
import type { PoolEntry } from "../../baselines/gepa/candidate-pool.js";
import { runGepa } from "../../baselines/gepa/run-gepa.js";
import { roleClient } from "../../pipeline/endpoints.js";
import { reflectionProposer } from "../../baselines/gepa/text-proposer.js";
import type { Task } from "../../spec/task.js";
import type { CompareSetup, MethodOutcome } from "../compare-setup.js";
import { restrictTasks } from "./single-adapter-grpo.js";

/** GEPA's sampling seeds (its episodes' and its reflections') start here, apart from the pipeline's other seeds. */
const GEPA_SEED_BASE = 9_000_000;

/** The best pool entry discovered within `episodes` (ties to the earlier one). */
export function bestWithin(pool: readonly PoolEntry[], episodes: number): PoolEntry {
  let best = pool[0]!;
  for (const entry of pool) if (entry.discoveredAtBudget <= episodes && entry.meanScore > best.meanScore) best = entry;
  return best;
}

/**
 * The candidate a snapshot deploys: the best pool entry discovered within `episodes`, or the agent's own prompt (the
 * empty candidate, scored on the same validation tasks before GEPA started) when that scores at least as well — as in
 * the GEPA paper, where the seed is the system's own prompt, so GEPA never deploys something worse on its validation
 * set than what it started from.
 */
export function snapshotCandidate(pool: readonly PoolEntry[], episodes: number, ownPromptScore: number): Candidate {
  const best = bestWithin(pool, episodes);
  return ownPromptScore >= best.meanScore ? {} : best.candidate;
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
  // Every task keeps one sampling seed for the whole run (per training seed), and iteration i's reflection samples with
  // GEPA_SEED_BASE + i: a GEPA run is repeatable, and a child is compared with its parent on the same random numbers.
  const taskIndex = new Map(tasks.map((task, index) => [task, index]));
  const seedStart = GEPA_SEED_BASE + setup.seed * tasks.length;
  const evaluate = createAgentEvaluator({
    environment,
    policy: await context.sampler(),
    user: (task) => environment.makeUser(task),
    sampling: { temperature: config.training.temperature, ...(maxTokens === undefined ? {} : { maxTokens }) },
    samplingSeed: (task) => seedStart + (taskIndex.get(task) ?? 0),
    concurrency: config.training.concurrency,
  });
  // The agent's own prompt on the validation tasks, charged like GEPA's own evaluations.
  budget.charge("selection", validationSet.length);
  const ownPrompt = await evaluate({}, validationSet);
  const ownPromptScore = ownPrompt.reduce((total, outcome) => total + outcome.score, 0) / ownPrompt.length;
  const result = await runGepa({
    seedCandidate: seedCandidateFromCapabilities(setup.capabilities.map(({ capability, description }) => ({ name: capability, description }))),
    trainingSet,
    validationSet,
    evaluate,
    propose: reflectionProposer({ client, temperature: 1, maxTokens: config.compare?.gepa.reflectionMaxTokens ?? 512 }, GEPA_SEED_BASE + setup.seed * 100_000),
    minibatchSize: config.compare?.gepa.minibatchSize ?? 3,
    proposalsPerRound: config.compare?.gepa.proposalsPerRound ?? 1,
    budget,
    seed: setup.seed,
    onIteration: (record) => context.log(`    gepa iteration ${record.iteration}: ${record.kind}${record.accepted ? " accepted" : ""}${record.note === undefined ? "" : ` (${record.note})`}, ${record.budgetUsed}/${budget.limit} rollouts`),
  });
  const snapshots = setup.fractions.map((fraction) => {
    const episodes = Math.round(fraction * budget.limit);
    // Pool entries count their discovery from GEPA's start, after the own prompt's evaluation.
    return { episodes: Math.min(episodes, budget.spent()), policy: { kind: "prompt" as const, candidate: snapshotCandidate(result.pool, episodes - validationSet.length, ownPromptScore) } };
  });
  const deploysOwn = Object.keys(snapshots.at(-1)?.policy.candidate ?? {}).length === 0;
  return {
    snapshots,
    budget: budget.summary(),
    notes: [`${result.pool.length} candidates, best validation score ${result.bestScore.toFixed(3)} (the agent's own prompt ${ownPromptScore.toFixed(3)}${deploysOwn ? ", deployed" : ""}), stopped by ${result.stopReason}`],
  };
}
