/**
 * The target environments of a run: τ² domains (the first N tasks of each, in τ²'s order; a scripted user reading the
 * task's instructions) or the TRACE-mini world (training seeds for the base rollouts, held-out seeds for evaluation; the
 * instance's scripted user).
 */
import path from "node:path";
import { MINI_TARGET_MODULE } from "../envs/mini/index.js";
import { loadTau2Domain } from "../envs/tau2/domains.js";
import { createTau2Environment } from "../envs/tau2/environment.js";
import { createScriptedUser } from "../rollout/scripted-user.js";
import type { SimulatedUser } from "../rollout/simulated-user.js";
import type { Environment } from "../spec/environment.js";
import type { Task } from "../spec/task.js";
import { createInstanceUser, createModuleEnvironment, type ModuleEnvironment } from "../synthesis/sdk/module-environment.js";
import { nativeModuleRunner } from "../synthesis/sdk/module-runner.js";
import type { ResolvedPipelineConfig } from "./pipeline-config.js";

/** The environment name of the TRACE-mini target. */
export const MINI_ENVIRONMENT_NAME = "mini-service";

export interface TargetDomain {
  /** `airline`, `retail` or `mini`. */
  domain: string;
  environment: Environment;
  /** Tasks of the base rollouts (analysis, routing examples, GRPO-on-target). */
  tasks: Task[];
  /** Tasks the methods are compared on: held-out seeds for `mini`; τ² has no local test split, so its configured tasks. */
  evaluationTasks: Task[];
  makeUser: (task: Task) => SimulatedUser;
  /** The user's request as the router sees it (the first user message). */
  request: (task: Task) => string;
  /** The module environment behind a `mini` target (for the module reference labeler and routing accuracy). */
  moduleEnvironment?: ModuleEnvironment;
}

function seedRange(start: number, count: number): number[] {
  return Array.from({ length: count }, (_, index) => start + index);
}

/** Loads the configured target. */
export async function loadTargetDomains(config: ResolvedPipelineConfig): Promise<TargetDomain[]> {
  const { target } = config;
  if (target.kind === "mini") {
    const training = seedRange(0, target.trainingSeeds);
    const evaluation = seedRange(target.evaluationSeedStart, target.evaluationSeedCount);
    const environment = await createModuleEnvironment({ runner: nativeModuleRunner(MINI_TARGET_MODULE), seeds: [...training, ...evaluation], name: MINI_ENVIRONMENT_NAME, maxSteps: target.maxSteps });
    const tasks = environment.tasks();
    return [
      {
        domain: "mini",
        environment,
        tasks: tasks.slice(0, training.length),
        evaluationTasks: tasks.slice(training.length),
        makeUser: (task) => createInstanceUser(environment.instance(task)),
        request: (task) => environment.instance(task).request,
        moduleEnvironment: environment,
      },
    ];
  }
  const dataDirectory = target.dataDirectory!;
  return target.domains.map((domain) => {
    const environment = createTau2Environment(loadTau2Domain(domain, path.join(dataDirectory, domain)));
    const all = environment.tasks();
    const tasks = target.tasksPerDomain === undefined ? [...all] : all.slice(0, target.tasksPerDomain);
    return { domain, environment, tasks, evaluationTasks: tasks, makeUser: (task) => createScriptedUser([task.userInstructions]), request: (task) => task.userInstructions };
  });
}
