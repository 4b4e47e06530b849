/**
 * The runner the gates drive: counts the module's calls (the stability gate needs the instance's age) and stops at
 * the first call that times out. A module that loops costs the sandbox's whole time budget on every call, so after
 * one timeout every later call fails at once with a `GatesStoppedError` and the gates stop instead of spending
 * minutes on a module that cannot pass.
 */
import { SandboxError } from "../sandbox/sandbox-error.js";
import type { ModuleRunner } from "../../envs/modules/module-runner.js";
import { describeModuleError } from "./module-text.js";
import { TraceError } from "../../spec/trace-error.js";

/** Raised for every module call after a call timed out; `reason` describes the timeout. */
export class GatesStoppedError extends TraceError {
  override readonly name = "GatesStoppedError";
  constructor(readonly reason: string) {
    super("not run: an earlier module call timed out", { category: "sandbox" });
  }
}

/** How many times each module function was called. */
export interface ModuleCallCounts {
  generate: number;
  runTool: number;
  verify: number;
}

/** A runner that counts calls and stops after a timeout; `stopped` says why once it has. */
export interface GuardedRunner extends ModuleRunner {
  readonly counts: Readonly<ModuleCallCounts>;
  readonly stopped: string | null;
}

/** Wraps `runner`; the wrapper's calls go to it until one times out. */
export function guardRunner(runner: ModuleRunner): GuardedRunner {
  const counts: ModuleCallCounts = { generate: 0, runTool: 0, verify: 0 };
  let stopped: string | null = null;
  const guarded = async <T>(kind: keyof ModuleCallCounts, call: () => Promise<T>): Promise<T> => {
    if (stopped !== null) throw new GatesStoppedError(stopped);
    counts[kind] += 1;
    try {
      return await call();
    } catch (error) {
      if (SandboxError.isInstance(error) && error.kind === "timeout") stopped = `a module call timed out (${describeModuleError(error)})`;
      throw error;
    }
  };
  return {
    capability: runner.capability,
    description: runner.description,
    policy: runner.policy,
    tools: runner.tools,
    newTools: runner.newTools,
    readTools: runner.readTools,
    ...(runner.difficulty === undefined ? {} : { difficulty: runner.difficulty }),
    counts,
    get stopped() {
      return stopped;
    },
    generate: (seed, difficulty) => guarded("generate", () => runner.generate(seed, difficulty)),
    runTool: (state, name, args) => guarded("runTool", () => runner.runTool(state, name, args)),
    verify: (input) => guarded("verify", () => runner.verify(input)),
  };
}
