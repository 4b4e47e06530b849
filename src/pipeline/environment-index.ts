/**
 * `RUN/environments/index.json`: which capability environment serves each kept capability, and which kept ones have
 * none (skipped, with the reason). One loader opens an entry's module for every stage: a hand-written module natively,
 * a generated one (`environments/<capability>/module.ts`, path relative to the run) in the sandbox.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { MINI_CAPABILITY_MODULES } from "../envs/mini/index.js";
import { CAPABILITY_ENVIRONMENTS } from "../synthesis/environments/index.js";
import { loadSandboxedModule } from "../synthesis/sandbox/sandboxed-module-runner.js";
import type { CapabilityModule } from "../synthesis/sdk/capability-module.js";
import { nativeModuleRunner, type ModuleRunner } from "../synthesis/sdk/module-runner.js";
import { UnknownEnvironmentModuleError } from "./unknown-environment-module-error.js";

/** One kept capability with its environment. */
export interface CapabilityEnvironmentEntry {
  /** The kept capability (analysis's name). */
  capability: string;
  /** Analysis's description of it. */
  description: string;
  /** `hand-written`: the module's capability name; `generated`: the module file, relative to the run directory. */
  module: string;
  source: "hand-written" | "generated";
  /** Ground-truth reward per validation seed. */
  validation: { seed: number; reward: number }[];
  /** `generated`: the calibration statistics of the kept module on the base policy. */
  calibration?: { meanReward: number; successRate: number; rewardStd: number; allZeroFraction: number; allOneFraction: number; seeds: number; samples: number };
}

/** A kept capability that gets no environment, and why. */
export interface SkippedCapability {
  capability: string;
  reason: string;
}

export interface EnvironmentIndex {
  environments: CapabilityEnvironmentEntry[];
  /** Kept capabilities without a usable environment (reported, never trained). */
  skipped: SkippedCapability[];
}

/** The index file of a run. */
export function environmentIndexFile(runDirectory: string): string {
  return path.join(runDirectory, "environments", "index.json");
}

/** Reads the index written by the synthesize stage (empty when missing). */
export function readEnvironmentIndex(runDirectory: string): EnvironmentIndex {
  const file = environmentIndexFile(runDirectory);
  if (!existsSync(file)) return { environments: [], skipped: [] };
  const index = JSON.parse(readFileSync(file, "utf8")) as Partial<EnvironmentIndex> & { unmapped?: string[] };
  // Runs written before `skipped` existed recorded the unmapped capabilities only.
  const skipped = index.skipped ?? (index.unmapped ?? []).map((capability) => ({ capability, reason: "no environment configured (environments.map)" }));
  return { environments: index.environments ?? [], skipped };
}

/** Every hand-written capability module: the τ² ones and TRACE-mini's. */
export const HAND_WRITTEN_MODULES: readonly CapabilityModule[] = [...CAPABILITY_ENVIRONMENTS.map((entry) => entry.module), ...MINI_CAPABILITY_MODULES];

/** The hand-written module named `module`, as a native runner. */
export function handWrittenRunner(capability: string, module: string): ModuleRunner {
  const found = HAND_WRITTEN_MODULES.find((candidate) => candidate.capability === module);
  if (found === undefined) throw new UnknownEnvironmentModuleError(capability, module, HAND_WRITTEN_MODULES.map((candidate) => candidate.capability));
  return nativeModuleRunner(found);
}

/** A loaded environment module; `dispose` stops a sandbox (a no-op for a native module). */
export interface LoadedEnvironment {
  runner: ModuleRunner;
  dispose(): Promise<void>;
}

/** Opens an entry's module: hand-written natively, generated in the sandbox (the only way generated code runs). */
export async function loadEnvironment(runDirectory: string, entry: CapabilityEnvironmentEntry): Promise<LoadedEnvironment> {
  if (entry.source === "hand-written") return { runner: handWrittenRunner(entry.capability, entry.module), dispose: () => Promise.resolve() };
  const source = readFileSync(path.resolve(runDirectory, entry.module), "utf8");
  const runner = await loadSandboxedModule({ source });
  return { runner, dispose: () => runner.dispose() };
}

/** Loads each entry once and keeps it until `close` (what a pipeline context holds). */
export function createEnvironmentCache(runDirectory: string): { load(entry: CapabilityEnvironmentEntry): Promise<ModuleRunner>; close(): Promise<void> } {
  const loaded = new Map<string, Promise<LoadedEnvironment>>();
  return {
    async load(entry) {
      const key = `${entry.source}\u0000${entry.module}`;
      let pending = loaded.get(key);
      if (pending === undefined) {
        pending = loadEnvironment(runDirectory, entry);
        loaded.set(key, pending);
        pending.catch(() => loaded.delete(key));
      }
      return (await pending).runner;
    },
    async close() {
      const all = [...loaded.values()];
      loaded.clear();
      await Promise.all(all.map(async (pending) => (await pending.catch(() => undefined))?.dispose()));
    },
  };
}
