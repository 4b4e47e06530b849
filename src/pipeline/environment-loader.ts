/**
 * The one loader of a capability environment's module for every stage: a hand-written module natively, a generated one
 * (`environments/<capability>/module.ts`, recorded relative to the run) in the sandbox.
 */
import { readFileSync } from "node:fs";
import { MINI_PRACTICE_MODULES } from "../envs/mini/index.js";
import type { CapabilityEnvironmentEntry } from "../run/environment-index.js";
import type { RunDirectory } from "../run/run-directory.js";
import { CAPABILITY_ENVIRONMENTS } from "../synthesis/environments/index.js";
import { loadSandboxedModule } from "../synthesis/sandbox/sandboxed-module-runner.js";
import type { CapabilityModule } from "../envs/modules/capability-module.js";
import { atDifficulty, nativeModuleRunner, type ModuleRunner } from "../envs/modules/module-runner.js";
import { UnknownEnvironmentModuleError } from "./unknown-environment-module-error.js";

/** Every hand-written capability module: the τ² ones and TRACE-mini's. */
const HAND_WRITTEN_MODULES: readonly CapabilityModule[] = [...CAPABILITY_ENVIRONMENTS.map((entry) => entry.module), ...MINI_PRACTICE_MODULES];

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
async function loadEnvironment(run: RunDirectory, entry: CapabilityEnvironmentEntry): Promise<LoadedEnvironment> {
  if (entry.source === "hand-written") return { runner: handWrittenRunner(entry.capability, entry.module), dispose: () => Promise.resolve() };
  const source = readFileSync(run.moduleFileOf(entry), "utf8");
  const runner = await loadSandboxedModule({ source });
  return { runner, dispose: () => runner.dispose() };
}

/** Loads each entry's module once and keeps it until `close` (what a pipeline context holds); an entry with a calibrated difficulty gets its worlds at that level. */
export function createEnvironmentCache(run: RunDirectory): { load(entry: CapabilityEnvironmentEntry): Promise<ModuleRunner>; close(): Promise<void> } {
  const loaded = new Map<string, Promise<LoadedEnvironment>>();
  return {
    async load(entry) {
      const key = `${entry.source}\u0000${entry.module}`;
      let pending = loaded.get(key);
      if (pending === undefined) {
        pending = loadEnvironment(run, entry);
        loaded.set(key, pending);
        pending.catch(() => loaded.delete(key));
      }
      return atDifficulty((await pending).runner, entry.difficulty);
    },
    async close() {
      const all = [...loaded.values()];
      loaded.clear();
      await Promise.all(all.map(async (pending) => (await pending.catch(() => undefined))?.dispose()));
    },
  };
}
