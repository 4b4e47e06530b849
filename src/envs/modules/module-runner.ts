/**
 * `ModuleRunner`: a capability module as the host drives it — static metadata plus async `generate` / `runTool` /
 * `verify`. A natively loaded module is wrapped by `nativeModuleRunner`; the sandbox implements the same interface, so
 * the environment adapter, the solution players and the determinism check work over either.
 */
import type { CapabilityModule, Json, ModuleInstance, ModuleSdk, ToolOutcome, Verdict, VerifierInput } from "./capability-module.js";
import { createModuleSdk } from "./module-sdk.js";

/** A capability module's metadata and functions, with the SDK already bound and every function async. */
export interface ModuleRunner {
  readonly capability: string;
  readonly description: string;
  readonly policy: string;
  readonly tools: CapabilityModule["tools"];
  readonly newTools: NonNullable<CapabilityModule["newTools"]>;
  readonly readTools: readonly string[];
  generate(seed: number): Promise<ModuleInstance>;
  runTool(state: { [key: string]: Json }, name: string, args: { [key: string]: Json }): Promise<ToolOutcome>;
  verify(input: VerifierInput): Promise<Verdict>;
}

/**
 * Wraps a module loaded in this process. Every value crossing the boundary is deep-copied through JSON, as it would be
 * across the sandbox boundary, so a module that mutates its inputs cannot corrupt the host's copies.
 */
export function nativeModuleRunner(module: CapabilityModule, sdk: ModuleSdk = createModuleSdk()): ModuleRunner {
  const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;
  return {
    capability: module.capability,
    description: module.description,
    policy: module.policy,
    tools: copy(module.tools),
    newTools: copy(module.newTools ?? []),
    readTools: [...module.readTools],
    generate: (seed) => Promise.resolve().then(() => copy(module.generate(seed, sdk))),
    runTool: (state, name, args) => Promise.resolve().then(() => copy(module.runTool(copy(state), name, copy(args), sdk))),
    verify: (input) => Promise.resolve().then(() => copy(module.verify(copy(input), sdk))),
  };
}
