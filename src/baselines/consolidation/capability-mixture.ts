/** The consolidation baseline's training environment: a uniform mixture of capability module environments. */
import type { Task } from "../../spec/task.js";
import { createModuleEnvironment } from "../../envs/modules/module-environment.js";
import { createInstanceUser } from "../../rollout/instance-user.js";
import type { ModuleRunner } from "../../envs/modules/module-runner.js";
import { createMixtureEnvironment, type MixtureEnvironment } from "./mixture-environment.js";

export interface CapabilityMixtureOptions {
  /** One runner per capability (`nativeModuleRunner(module)` or a sandboxed one). */
  runners: readonly ModuleRunner[];
  /** Seeds of each module environment [0…99]. */
  seeds?: readonly number[];
  maxSteps?: number;
}

/** Each capability's module environment with its instance user, mixed uniformly; members are named by capability. */
export async function createCapabilityMixture(options: CapabilityMixtureOptions): Promise<MixtureEnvironment> {
  const members = await Promise.all(
    options.runners.map(async (runner) => {
      const environment = await createModuleEnvironment({
        runner,
        ...(options.seeds === undefined ? {} : { seeds: options.seeds }),
        ...(options.maxSteps === undefined ? {} : { maxSteps: options.maxSteps }),
      });
      return { name: runner.capability, environment, makeUser: (task: Task) => createInstanceUser(environment.instance(task)) };
    }),
  );
  return createMixtureEnvironment({ members, name: "capability-mixture" });
}
