/** `RUN/environments/index.json`: which capability environment serves each kept capability, and which kept ones have none. */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { MINI_CAPABILITY_MODULES } from "../envs/mini/index.js";
import { CAPABILITY_ENVIRONMENTS } from "../synthesis/environments/index.js";
import type { CapabilityModule } from "../synthesis/sdk/capability-module.js";
import { nativeModuleRunner, type ModuleRunner } from "../synthesis/sdk/module-runner.js";
import { UnknownEnvironmentModuleError } from "./unknown-environment-module-error.js";

/** One kept capability with its environment. */
export interface CapabilityEnvironmentEntry {
  /** The kept capability (analysis's name). */
  capability: string;
  /** Analysis's description of it. */
  description: string;
  /** The hand-written module's capability name. */
  module: string;
  source: "hand-written";
  /** Ground-truth reward per validation seed. */
  validation: { seed: number; reward: number }[];
}

export interface EnvironmentIndex {
  environments: CapabilityEnvironmentEntry[];
  /** Kept capabilities without a configured environment (reported and skipped). */
  unmapped: string[];
}

/** The index file of a run. */
export function environmentIndexFile(runDirectory: string): string {
  return path.join(runDirectory, "environments", "index.json");
}

/** Reads the index written by the synthesize stage (empty when missing). */
export function readEnvironmentIndex(runDirectory: string): EnvironmentIndex {
  const file = environmentIndexFile(runDirectory);
  return existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as EnvironmentIndex) : { environments: [], unmapped: [] };
}

/** Every hand-written capability module: the τ² ones and TRACE-mini's. */
export const HAND_WRITTEN_MODULES: readonly CapabilityModule[] = [...CAPABILITY_ENVIRONMENTS.map((entry) => entry.module), ...MINI_CAPABILITY_MODULES];

/** The hand-written module named `module`, as a native runner. */
export function handWrittenRunner(capability: string, module: string): ModuleRunner {
  const found = HAND_WRITTEN_MODULES.find((candidate) => candidate.capability === module);
  if (found === undefined) throw new UnknownEnvironmentModuleError(capability, module, HAND_WRITTEN_MODULES.map((candidate) => candidate.capability));
  return nativeModuleRunner(found);
}
