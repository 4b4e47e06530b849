/**
 * Determinism check: for each seed, generates the instance twice, replays the solution twice and verifies twice, and
 * reports every seed where the two runs differ (compared as canonical JSON). Catches generators, tools or verifiers
 * that read `Math.random`, the clock or state kept between calls.
 */
import type { Json } from "./capability-module.js";
import type { ModuleRunner } from "./module-runner.js";
import { createModuleSdk } from "./module-sdk.js";
import { solutionReply } from "./module-policies.js";
import { verifierInputFromCalls } from "./verifier-input.js";

/** Where two runs of one seed first differed. */
export interface DeterminismMismatch {
  seed: number;
  /** `error`: a run threw (its message in `first`). */
  part: "generate" | "runTool" | "verify" | "error";
  first: string;
  second: string;
}

export interface DeterminismReport {
  deterministic: boolean;
  seeds: number;
  mismatches: DeterminismMismatch[];
}

const errorMessage = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * Runs the check over `seeds`; never throws for module errors (a throwing seed is an `error` mismatch, its text from
 * `describeError`, by default the error's message).
 */
export async function checkDeterminism(runner: ModuleRunner, seeds: readonly number[], describeError: (error: unknown) => string = errorMessage): Promise<DeterminismReport> {
  const sdk = createModuleSdk();
  const canonical = (value: unknown) => sdk.canonical(value as Json);
  const mismatches: DeterminismMismatch[] = [];
  const runOnce = async (seed: number) => {
    const instance = await runner.generate(seed);
    const input = await verifierInputFromCalls(runner, instance, instance.solution, [solutionReply(instance)]);
    const verdict = await runner.verify(input);
    return {
      generate: canonical(instance),
      runTool: canonical({ calls: input.calls, finalState: input.finalState }),
      verify: canonical(verdict),
    };
  };
  for (const seed of seeds) {
    try {
      const first = await runOnce(seed);
      const second = await runOnce(seed);
      for (const part of ["generate", "runTool", "verify"] as const) {
        if (first[part] !== second[part]) {
          mismatches.push({ seed, part, first: first[part], second: second[part] });
          break;
        }
      }
    } catch (error) {
      mismatches.push({ seed, part: "error", first: describeError(error), second: "" });
    }
  }
  return { deterministic: mismatches.length === 0, seeds: seeds.length, mismatches };
}
