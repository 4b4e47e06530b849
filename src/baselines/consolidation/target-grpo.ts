/**
 * The GRPO-on-target baseline: the same runGrpo, with groups over the target (τ²) tasks of one or more domains and a
 * scripted user (the task's instructions, then ###STOP###), for as many iterations as TRACE spent over all capabilities.
 */
import { createScriptedUser } from "../../rollout/scripted-user.js";
import type { SimulatedUser } from "../../rollout/simulated-user.js";
import type { Environment } from "../../spec/environment.js";
import type { Task } from "../../spec/task.js";
import { runGrpo } from "../../training/run-grpo.js";
import type { RunGrpoOptions, RunGrpoResult } from "../../training/grpo-types.js";
import { createMixtureEnvironment, type MixtureEnvironment } from "./mixture-environment.js";

/** One target domain: its environment and, optionally, the tasks to train on [all]. */
export interface TargetDomainEnvironment {
  name: string;
  environment: Environment;
  /** The task's simulated user [a scripted user reading the task's instructions, then ###STOP###]. */
  makeUser?: (task: Task) => SimulatedUser;
}

export interface RunTargetGrpoOptions extends Omit<RunGrpoOptions, "environment" | "makeUser" | "capability" | "iterations"> {
  domains: readonly TargetDomainEnvironment[];
  /** The sum over capabilities (`totalCapabilityIterations`). */
  iterations: number;
  /** Checkpoint directory name and metrics scope [`target`]. */
  capability?: string;
  /** runGrpo, or a stand-in in tests. */
  runGrpo?: (options: RunGrpoOptions) => Promise<RunGrpoResult>;
}

/** Iterations of the target baseline: the sum of each capability's GRPO iterations. */
export function totalCapabilityIterations(perCapability: Readonly<Record<string, number>> | readonly number[]): number {
  const values = Array.isArray(perCapability) ? (perCapability as readonly number[]) : Object.values(perCapability);
  for (const value of values) if (!Number.isInteger(value) || value < 0) throw new RangeError(`iterations must be non-negative integers, got ${value}`);
  return values.reduce((sum, value) => sum + value, 0);
}

/** Every target task of every domain (ids `<domain>/<task id>`, interleaved) with the scripted user. */
export function createTargetEnvironment(domains: readonly TargetDomainEnvironment[]): MixtureEnvironment {
  return createMixtureEnvironment({
    members: domains.map(({ name, environment, makeUser }) => ({ name, environment, makeUser: makeUser ?? ((task: Task) => createScriptedUser([task.userInstructions])) })),
    tasksPerMember: Math.max(...domains.map(({ environment }) => environment.tasks().length)),
    name: `target(${domains.map(({ name }) => name).join("+")})`,
  });
}

/** Sets up and runs GRPO on the target environment(s). */
export function runTargetGrpo(options: RunTargetGrpoOptions): Promise<RunGrpoResult> {
  const { domains, runGrpo: run = runGrpo, capability = "target", ...rest } = options;
  const environment = createTargetEnvironment(domains);
  return run({ ...rest, environment, makeUser: (task) => environment.makeUser(task), capability });
}
