/**
 * The one-adapter GRPO baselines of `trace compare`: GRPO on the target's own training tasks, and GRPO on a uniform
 * mixture of the capability environments; both run as many iterations as TRACE over all capabilities (the same
 * rollouts), with snapshots at the same budget shares.
 */
import path from "node:path";
import { createRolloutBudget } from "../../baselines/budget/rollout-budget.js";
import { createCapabilityMixture } from "../../baselines/consolidation/capability-mixture.js";
import { createTargetEnvironment } from "../../baselines/consolidation/target-grpo.js";
import type { MixtureEnvironment } from "../../baselines/consolidation/mixture-environment.js";
import type { Environment } from "../../spec/environment.js";
import type { Task } from "../../spec/task.js";
import type { CompareSetup, MethodOutcome } from "../compare-setup.js";
import { checkpointAt, trainWithinBudget } from "../grpo-snapshots.js";
import { trainingSeeds } from "../../pipeline/capability-grpo.js";

/** The environment with only `tasks` exposed (the target's training tasks, never its evaluation tasks). */
export function restrictTasks(environment: Environment, tasks: readonly Task[]): Environment {
  const ids = new Set(tasks.map((task) => task.id));
  return new Proxy(environment, {
    get(target, property, receiver) {
      if (property === "tasks") return () => target.tasks().filter((task) => ids.has(task.id));
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

async function runSingleAdapter(setup: CompareSetup, method: string, environment: MixtureEnvironment): Promise<MethodOutcome> {
  const { training } = setup.context.config;
  const budget = createRolloutBudget({ limit: setup.budgetLimit });
  const iterations = setup.capabilities.length * training.iterations;
  const name = `s${setup.seed}-${method}`;
  const checkpoints = await trainWithinBudget({
    context: setup.context,
    trainer: setup.trainer,
    target: { environment, makeUser: (task) => environment.makeUser(task) },
    name,
    adaptersDirectory: path.join(setup.directory, method),
    iterations,
    seed: setup.seed,
    budget,
  });
  const perIteration = training.groups * training.samples;
  const snapshots = setup.fractions.map((fraction) => {
    const checkpoint = checkpointAt(checkpoints, Math.round(fraction * iterations));
    return checkpoint === null
      ? { episodes: 0, policy: { kind: "model" as const, model: setup.context.config.model.servedModelName } }
      : { episodes: checkpoint.episodes ?? checkpoint.iteration * perIteration, policy: { kind: "model" as const, model: `${name}-i${checkpoint.iteration}`, adapterPath: checkpoint.adapterPath } };
  });
  return { snapshots, budget: budget.summary(), notes: [`${iterations} iterations on ${environment.name}`] };
}

/** GRPO on the target's training tasks (every domain, interleaved). */
export function runTargetGrpoMethod(setup: CompareSetup): Promise<MethodOutcome> {
  const environment = createTargetEnvironment(setup.domains.map((domain) => ({ name: domain.domain, environment: restrictTasks(domain.environment, domain.tasks), makeUser: domain.makeUser })));
  return runSingleAdapter(setup, "grpo-target", environment);
}

/** GRPO on a uniform mixture of the capability environments. */
export async function runMixtureMethod(setup: CompareSetup): Promise<MethodOutcome> {
  const environment = await createCapabilityMixture({ runners: setup.capabilities.map((capability) => capability.runner), seeds: trainingSeeds(setup.context) });
  return runSingleAdapter(setup, "mixture", environment);
}
