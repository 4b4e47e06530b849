/**
 * `ModuleRunner`: a capability module as the host drives it — static metadata plus async `generate` / `runTool` /
 * `verify`. A natively loaded module is wrapped by `nativeModuleRunner`; the sandbox implements the same interface, so
 * the environment adapter, the solution players and the determinism check work over either.
 */
import type { CapabilityModule, Json, ModuleDifficulty, ModuleInstance, ModuleSdk, ToolOutcome, Verdict, VerifierInput } from "./capability-module.js";
import { createModuleSdk } from "./module-sdk.js";
import { TraceError } from "../../spec/trace-error.js";

/** A capability module's metadata and functions, with the SDK already bound and every function async. */
export interface ModuleRunner {
  readonly capability: string;
  readonly description: string;
  readonly policy: string;
  readonly tools: CapabilityModule["tools"];
  readonly newTools: NonNullable<CapabilityModule["newTools"]>;
  readonly readTools: readonly string[];
  /** The module's difficulty levels, if it has any. */
  readonly difficulty?: ModuleDifficulty;
  /** `difficulty`: a level of `this.difficulty` (default: its `initial`). */
  generate(seed: number, difficulty?: number): Promise<ModuleInstance>;
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
    ...(module.difficulty === undefined ? {} : { difficulty: copy(module.difficulty) }),
    generate: (seed, difficulty) => Promise.resolve().then(() => copy(module.generate(seed, sdk, difficulty))),
    runTool: (state, name, args) => Promise.resolve().then(() => copy(module.runTool(copy(state), name, copy(args), sdk))),
    verify: (input) => Promise.resolve().then(() => copy(module.verify(copy(input), sdk))),
  };
}

/** The module's difficulty level `level` is out of its range (or the module has no levels). */
export class DifficultyLevelError extends TraceError {
  override readonly name = "DifficultyLevelError";

  constructor(
    readonly capability: string,
    readonly level: number,
    readonly levels: number | undefined,
  ) {
    super(
      levels === undefined
        ? `environment ${capability} has no difficulty levels, so it cannot be generated at level ${level}`
        : `environment ${capability}: difficulty level ${level} is not one of its levels 0…${levels - 1}`,
      { category: "data" },
    );
  }
}

/**
 * The same runner with every `generate` at difficulty `level` (what calibration chose): the stages that only call
 * `generate(seed)` get the calibrated worlds. `level` undefined returns the runner as it is.
 */
export function atDifficulty(runner: ModuleRunner, level: number | undefined): ModuleRunner {
  if (level === undefined) return runner;
  const levels = runner.difficulty?.levels;
  if (levels === undefined || !Number.isInteger(level) || level < 0 || level >= levels) throw new DifficultyLevelError(runner.capability, level, levels);
  return { ...runner, generate: (seed) => runner.generate(seed, level) };
}
