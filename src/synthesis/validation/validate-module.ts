/** The validation gates of a capability module (TRACE step 3), each run and reported separately. */
import { checkDeterminism } from "../sdk/determinism-check.js";
import { playDoNothing, playReadOnly, playSolution } from "../sdk/module-policies.js";
import type { ModuleRunner } from "../sdk/module-runner.js";
import type { Verdict } from "../sdk/capability-module.js";
import { moduleInstanceSchema, formatIssues } from "../sandbox/module-value-schemas.js";
import { loadSandboxedModule } from "../sandbox/sandboxed-module-runner.js";
import type { SandboxOptions } from "../sandbox/sandboxed-module-runner.js";
import type { GateResult, ValidationReport } from "./gate-result.js";
import { validationReport } from "./gate-result.js";
import type { SynthesisTarget } from "./target-tools.js";
import { targetTools } from "./target-tools.js";
import { toolSchemaProblems } from "./tool-schema-match.js";

/** The gates' names, in the order they run. */
export const GATE_NAMES = ["compiles and exports the SDK shape", "deterministic per seed", "ground truth succeeds", "do-nothing policy fails", "read-only policy fails", "tools match the target"] as const;

/** Options of the gates. */
export interface ValidationOptions {
  target: SynthesisTarget;
  /** Seeds the policies are played on (default 0…99). */
  seeds?: readonly number[];
  /** Seeds generated and replayed twice for the determinism gate (default 0…9). */
  determinismSeeds?: readonly number[];
  /** Fraction of seeds the ground truth must solve (default 0.99). */
  minimumSolved?: number;
  /** Largest fraction of seeds the do-nothing and read-only policies may solve (default 0). */
  maximumTrivialSolved?: number;
}

const range = (count: number): number[] => Array.from({ length: count }, (_, index) => index);

/**
 * Loads module source in the sandbox and runs every gate. A module that does not load fails the first gate with the
 * sandbox's report and every later gate as not run. The sandbox is disposed before returning.
 */
export async function validateModuleSource(options: ValidationOptions & { source: string; sandbox?: Omit<SandboxOptions, "source"> }): Promise<ValidationReport> {
  let runner;
  try {
    runner = await loadSandboxedModule({ ...options.sandbox, source: options.source });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return validationReport([
      { name: GATE_NAMES[0], passed: false, details: [reason] },
      ...GATE_NAMES.slice(1).map((name) => ({ name, passed: false, details: ["not run: the module did not load"] })),
    ]);
  }
  try {
    return await validateModule(runner, options);
  } finally {
    await runner.dispose();
  }
}

/** Runs every gate on a loaded module (native or sandboxed). Never throws for the module's own failures. */
export async function validateModule(runner: ModuleRunner, options: ValidationOptions): Promise<ValidationReport> {
  const seeds = options.seeds ?? range(100);
  return validationReport([
    await shapeGate(runner, seeds[0] ?? 0),
    await determinismGate(runner, options.determinismSeeds ?? range(10)),
    await policyGate(GATE_NAMES[2], seeds, (seed) => playSolution(runner, seed), { atLeast: options.minimumSolved ?? 0.99 }),
    await policyGate(GATE_NAMES[3], seeds, (seed) => playDoNothing(runner, seed), { atMost: options.maximumTrivialSolved ?? 0 }),
    await policyGate(GATE_NAMES[4], seeds, (seed) => playReadOnly(runner, seed), { atMost: options.maximumTrivialSolved ?? 0 }),
    toolsGate(runner, options.target),
  ]);
}

async function shapeGate(runner: ModuleRunner, seed: number): Promise<GateResult> {
  const details: string[] = [];
  try {
    const parsed = moduleInstanceSchema.safeParse(await runner.generate(seed));
    if (!parsed.success) details.push(...formatIssues(parsed.error).map((issue) => `generate(${seed}): ${issue}`));
    else if (parsed.data.solution.length === 0) details.push(`generate(${seed}): the ground-truth solution makes no tool call`);
  } catch (error) {
    details.push(`generate(${seed}) failed: ${describe(error)}`);
  }
  const toolNames = new Set(runner.tools.map((tool) => tool.function.name));
  for (const name of runner.readTools) if (!toolNames.has(name)) details.push(`readTools names ${name}, which is not a tool`);
  if (runner.readTools.length === toolNames.size) details.push("every tool is a read tool: the task changes nothing");
  return { name: GATE_NAMES[0], passed: details.length === 0, details: details.length === 0 ? [`${runner.capability}: ${toolNames.size} tools, instance of seed ${seed} well formed`] : details };
}

async function determinismGate(runner: ModuleRunner, seeds: readonly number[]): Promise<GateResult> {
  try {
    const report = await checkDeterminism(runner, seeds);
    const details = report.mismatches.map((mismatch) => `seed ${mismatch.seed}: ${mismatch.part} differs between two runs (${truncate(mismatch.first)} vs ${truncate(mismatch.second)})`);
    return { name: GATE_NAMES[1], passed: report.deterministic, details: report.deterministic ? [`${seeds.length} seeds generated, replayed and verified twice: identical`] : details };
  } catch (error) {
    return { name: GATE_NAMES[1], passed: false, details: [describe(error)] };
  }
}

async function policyGate(name: string, seeds: readonly number[], play: (seed: number) => Promise<Verdict>, bound: { atLeast?: number; atMost?: number }): Promise<GateResult> {
  let solved = 0;
  const problems: string[] = [];
  const solvedSeeds: number[] = [];
  for (const seed of seeds) {
    try {
      const verdict = await play(seed);
      if (verdict.success) {
        solved += 1;
        solvedSeeds.push(seed);
      } else if (bound.atLeast !== undefined) problems.push(`seed ${seed}: not solved (reward ${verdict.reward}, ${JSON.stringify(verdict.breakdown)})`);
    } catch (error) {
      problems.push(`seed ${seed}: ${describe(error)}`);
    }
  }
  const fraction = seeds.length === 0 ? 0 : solved / seeds.length;
  const summary = `solved ${solved}/${seeds.length} seeds (${(fraction * 100).toFixed(1)}%, ${bound.atLeast !== undefined ? `needs ≥ ${bound.atLeast * 100}%` : `allowed ≤ ${(bound.atMost ?? 0) * 100}%`})`;
  const passed = bound.atLeast !== undefined ? fraction >= bound.atLeast : fraction <= (bound.atMost ?? 0) && problems.length === 0;
  const solvedNote = bound.atMost !== undefined && solvedSeeds.length > 0 ? [`solved seeds: ${solvedSeeds.slice(0, 20).join(", ")}`] : [];
  return { name, passed, details: [summary, ...solvedNote, ...problems] };
}

function toolsGate(runner: ModuleRunner, target: SynthesisTarget): GateResult {
  const tools = targetTools(target);
  const problems = runner.tools.flatMap((tool) => toolSchemaProblems(tool, tools, runner.newTools));
  const declaredNew = runner.newTools.map((entry) => `${entry.name} (new: ${entry.reason})`);
  return {
    name: GATE_NAMES[5],
    passed: problems.length === 0,
    details: problems.length === 0 ? [`${runner.tools.length} tools match ${target}${declaredNew.length > 0 ? `; ${declaredNew.join("; ")}` : ""}`] : problems,
  };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function truncate(text: string): string {
  return text.length > 160 ? `${text.slice(0, 160)}…` : text;
}
