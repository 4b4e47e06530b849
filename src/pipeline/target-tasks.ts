/** The target τ² environments and the configured task subset of each (the first N tasks in τ²'s order). */
import path from "node:path";
import { loadTau2Domain } from "../envs/tau2/domains.js";
import { createTau2Environment } from "../envs/tau2/environment.js";
import type { Environment } from "../spec/environment.js";
import type { Task } from "../spec/task.js";
import type { ResolvedPipelineConfig } from "./pipeline-config.js";

export interface TargetDomain {
  domain: "airline" | "retail";
  environment: Environment;
  tasks: Task[];
}

/** Loads each configured domain from `<dataDirectory>/<domain>` and picks its tasks. */
export function loadTargetDomains(config: ResolvedPipelineConfig): TargetDomain[] {
  return config.target.domains.map((domain) => {
    const environment = createTau2Environment(loadTau2Domain(domain, path.join(config.target.dataDirectory, domain)));
    const all = environment.tasks();
    return { domain, environment, tasks: config.target.tasksPerDomain === undefined ? [...all] : all.slice(0, config.target.tasksPerDomain) };
  });
}
