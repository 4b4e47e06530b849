/**
 * The validation gates of a capability module (TRACE step 3), each run and reported separately, cheapest first: shape,
 * target tools, determinism, the ground truth, the do-nothing and read-only policies, the adversarial policies
 * (a changed argument, unrequested writes: against lax verifiers) and verdict stability over many calls (against
 * verifiers that change with the instance's age). A module call that times out stops the gates; otherwise every gate
 * runs unless `stopAtFirstFailure`.
 */
import type { Json, ModuleInstance, Verdict, VerifierInput } from "../../envs/modules/capability-module.js";
import type { AdversarialInput, GroundTruthReplay } from "../../envs/modules/adversarial-policies.js";
import { changedArgumentInput, everyWriteInput, groundTruthInput, oneExtraWriteInput, replayGroundTruth } from "../../envs/modules/adversarial-policies.js";
import { checkDeterminism } from "../../envs/modules/determinism-check.js";
import { DO_NOTHING_REPLY, READ_ONLY_REPLY, readOnlyCalls } from "../../envs/modules/module-policies.js";
import type { ModuleRunner } from "../../envs/modules/module-runner.js";
import { createModuleSdk } from "../../envs/modules/module-sdk.js";
import { checkVerdict } from "../../envs/modules/module-verdict.js";
import { verifierInputFromCalls } from "../../envs/modules/verifier-input.js";
import { moduleInstanceSchema, formatIssues } from "../sandbox/module-value-schemas.js";
import { loadSandboxedModule } from "../sandbox/sandboxed-module-runner.js";
import type { SandboxOptions } from "../sandbox/sandboxed-module-runner.js";
import type { GateResult, ValidationReport } from "./gate-result.js";
import { notRunGate, validationReport } from "./gate-result.js";
import type { GuardedRunner } from "./guarded-runner.js";
import { guardRunner } from "./guarded-runner.js";
import { describeModuleError, quoteModuleText } from "./module-text.js";
import type { FreshRunner, PlayRecord } from "./stability-gate.js";
import { stabilityGate } from "./stability-gate.js";
import type { SynthesisTarget } from "./target-tools.js";
import { targetTools } from "./target-tools.js";
import { toolSchemaProblems } from "./tool-schema-match.js";

/** The gates' names, in the order they run. */
export const GATE_NAMES = [
  "compiles and exports the SDK shape",
  "tools match the target",
  "deterministic per seed",
  "ground truth succeeds",
  "do-nothing policy fails",
  "read-only policy fails",
  "a changed argument fails",
  "unrequested writes fail",
  "verdicts stable over many calls",
] as const;

/** Options of the gates. */
export interface ValidationOptions {
  target: SynthesisTarget;
  /** Seeds the policies are played on (default 0…99). */
  seeds?: readonly number[];
  /** Seeds generated and replayed twice for the determinism gate (default 0…9). */
  determinismSeeds?: readonly number[];
  /** Fraction of seeds the ground truth must solve (default 0.99). */
  minimumSolved?: number;
  /** Largest fraction of seeds the do-nothing, read-only and adversarial policies may solve (default 0). */
  maximumTrivialSolved?: number;
  /** Stop at the first failing gate, reporting the rest as not run (default false: run every gate). A timeout always stops. */
  stopAtFirstFailure?: boolean;
  /** Verifier calls the module's instance serves before the stability gate's checks end (default 500). */
  stabilityCalls?: number;
  /** New seeds the stability gate plays late, in the old instance and in a fresh one (default 4). */
  lateSeeds?: number;
  /** Loads the module again in a fresh instance, for the stability gate (`validateModuleSource` gives one). */
  freshRunner?: () => Promise<FreshRunner>;
}

const range = (count: number): number[] => Array.from({ length: count }, (_, index) => index);
const canonical = (value: unknown): string => createModuleSdk().canonical(value as Json);

/**
 * Loads module source in the sandbox and runs the gates. A module that does not load fails the first gate with the
 * sandbox's report and every later gate is not run. The sandbox is disposed before returning.
 */
export async function validateModuleSource(options: ValidationOptions & { source: string; sandbox?: Omit<SandboxOptions, "source"> }): Promise<ValidationReport> {
  const load = () => loadSandboxedModule({ ...options.sandbox, source: options.source });
  let runner;
  try {
    runner = await load();
  } catch (error) {
    return validationReport([{ name: GATE_NAMES[0], passed: false, details: [describeModuleError(error)] }, ...GATE_NAMES.slice(1).map((name) => notRunGate(name, "the module did not load"))]);
  }
  try {
    return await validateModule(runner, { freshRunner: load, ...options });
  } finally {
    await runner.dispose();
  }
}

/** What the gates share: the guarded runner, the seeds, every verified play (for the stability gate) and the ground truths. */
interface GateSession {
  runner: GuardedRunner;
  seeds: readonly number[];
  records: PlayRecord[];
  groundTruths: Map<number, GroundTruthReplay>;
}

/** Runs the gates on a loaded module (native or sandboxed). Never throws for the module's own failures. */
export async function validateModule(moduleRunner: ModuleRunner, options: ValidationOptions): Promise<ValidationReport> {
  const runner = guardRunner(moduleRunner);
  const seeds = options.seeds ?? range(100);
  const determinismSeeds = options.determinismSeeds ?? range(10);
  const maximumTrivialSolved = options.maximumTrivialSolved ?? 0;
  const session: GateSession = { runner, seeds, records: [], groundTruths: new Map() };
  const atMost = { atMost: maximumTrivialSolved };
  const gates: [string, () => Promise<GateResult>][] = [
    [GATE_NAMES[0], () => shapeGate(runner, seeds[0] ?? 0)],
    [GATE_NAMES[1], () => Promise.resolve(toolsGate(runner, options.target))],
    [GATE_NAMES[2], () => determinismGate(runner, determinismSeeds)],
    [GATE_NAMES[3], () => policyGate(session, GATE_NAMES[3], playGroundTruth, { atLeast: options.minimumSolved ?? 0.99 })],
    [GATE_NAMES[4], () => policyGate(session, GATE_NAMES[4], playDoNothing, atMost)],
    [GATE_NAMES[5], () => policyGate(session, GATE_NAMES[5], playReadOnly, atMost)],
    [GATE_NAMES[6], () => policyGate(session, GATE_NAMES[6], playChangedArgument, atMost)],
    [GATE_NAMES[7], () => policyGate(session, GATE_NAMES[7], playUnrequestedWrites, atMost)],
    [
      GATE_NAMES[8],
      () =>
        stabilityGate(GATE_NAMES[8], runner, {
          records: session.records,
          firstNewSeed: [...seeds, ...determinismSeeds].reduce((largest, seed) => Math.max(largest, seed), -1) + 1,
          stabilityCalls: options.stabilityCalls ?? 500,
          lateSeeds: options.lateSeeds ?? 4,
          maximumTrivialSolved,
          ...(options.freshRunner === undefined ? {} : { freshRunner: options.freshRunner }),
        }),
    ],
  ];
  const results: GateResult[] = [];
  let stopReason: string | null = null;
  let stoppedAtFirstFailure = false;
  for (const [name, run] of gates) {
    if (stopReason !== null) {
      results.push(notRunGate(name, stopReason));
      continue;
    }
    const result = await run();
    results.push(result);
    if (runner.stopped !== null) stopReason = `a module call timed out (in ${name})`;
    else if (!result.passed && options.stopAtFirstFailure === true) {
      stopReason = `stopped at the first failing gate (${name})`;
      stoppedAtFirstFailure = true;
    }
  }
  return validationReport(results, stoppedAtFirstFailure && results.some((gate) => gate.notRun === true));
}

async function shapeGate(runner: ModuleRunner, seed: number): Promise<GateResult> {
  const details: string[] = [];
  try {
    const parsed = moduleInstanceSchema.safeParse(await runner.generate(seed));
    if (!parsed.success) details.push(...formatIssues(parsed.error).map((issue) => `generate(${seed}): ${issue}`));
    else if (parsed.data.solution.length === 0) details.push(`generate(${seed}): the ground-truth solution makes no tool call`);
  } catch (error) {
    details.push(`generate(${seed}) failed: ${describeModuleError(error)}`);
  }
  const toolNames = new Set(runner.tools.map((tool) => tool.function.name));
  for (const name of runner.readTools) if (!toolNames.has(name)) details.push(`readTools names ${quoteModuleText(name, 80)}, which is not a tool`);
  if (runner.readTools.length === toolNames.size) details.push("every tool is a read tool: the task changes nothing");
  return { name: GATE_NAMES[0], passed: details.length === 0, details: details.length === 0 ? [`${runner.capability}: ${toolNames.size} tools, instance of seed ${seed} well formed`] : details };
}

async function determinismGate(runner: GuardedRunner, seeds: readonly number[]): Promise<GateResult> {
  const details: string[] = [];
  for (const seed of seeds) {
    const report = await checkDeterminism(runner, [seed], describeModuleError);
    for (const mismatch of report.mismatches) {
      details.push(mismatch.part === "error" ? `seed ${seed}: ${mismatch.first}` : `seed ${seed}: ${mismatch.part} differs between two runs (${truncate(mismatch.first)} vs ${truncate(mismatch.second)})`);
    }
    if (runner.stopped !== null) {
      details.push(`stopped at seed ${seed}: ${runner.stopped}`);
      break;
    }
  }
  return { name: GATE_NAMES[2], passed: details.length === 0, details: details.length === 0 ? [`${seeds.length} seeds generated, replayed and verified twice: identical`] : details };
}

/** One seed's play of a policy: the verdict and what the policy did, or null when the policy has nothing to try on the seed. */
type Play = (session: GateSession, seed: number) => Promise<{ verdict: Verdict; description?: string } | null>;

async function verifyAndRecord(session: GateSession, seed: number, policy: string, input: VerifierInput): Promise<Verdict> {
  const verdict = checkVerdict(await session.runner.verify(input));
  session.records.push({ seed, policy, input, verdict: canonical(verdict) });
  return verdict;
}

async function groundTruth(session: GateSession, seed: number): Promise<GroundTruthReplay> {
  const cached = session.groundTruths.get(seed);
  if (cached !== undefined) return cached;
  const replay = await replayGroundTruth(session.runner, await session.runner.generate(seed));
  session.groundTruths.set(seed, replay);
  return replay;
}

async function instanceOf(session: GateSession, seed: number): Promise<ModuleInstance> {
  return session.groundTruths.get(seed)?.instance ?? session.runner.generate(seed);
}

const playGroundTruth: Play = async (session, seed) => ({ verdict: await verifyAndRecord(session, seed, "ground truth", groundTruthInput(await groundTruth(session, seed))) });

const playDoNothing: Play = async (session, seed) => {
  const instance = await instanceOf(session, seed);
  return { verdict: await verifyAndRecord(session, seed, "do-nothing", { instance, calls: [], replies: [DO_NOTHING_REPLY], finalState: instance.state }) };
};

const playReadOnly: Play = async (session, seed) => {
  const instance = await instanceOf(session, seed);
  const input = await verifierInputFromCalls(session.runner, instance, readOnlyCalls(session.runner, instance), [READ_ONLY_REPLY]);
  return { verdict: await verifyAndRecord(session, seed, "read-only", input) };
};

const playChangedArgument: Play = async (session, seed) => {
  const probe = await changedArgumentInput(session.runner, await groundTruth(session, seed));
  return probe === null ? null : { verdict: await verifyAndRecord(session, seed, "changed argument", probe.input), description: probe.description };
};

/** Even seeds play one extra write, odd seeds every write (each falls back to the other): one verifier call per seed. */
const playUnrequestedWrites: Play = async (session, seed) => {
  const replay = await groundTruth(session, seed);
  const probes: [string, () => Promise<AdversarialInput | null>][] = [
    ["one extra write", () => oneExtraWriteInput(session.runner, replay)],
    ["every write", () => everyWriteInput(session.runner, replay)],
  ];
  if (Math.abs(seed) % 2 === 1) probes.reverse();
  for (const [policy, build] of probes) {
    const probe = await build();
    if (probe !== null) return { verdict: await verifyAndRecord(session, seed, policy, probe.input), description: probe.description };
  }
  return null;
};

async function policyGate(session: GateSession, name: string, play: Play, bound: { atLeast?: number; atMost?: number }): Promise<GateResult> {
  let solved = 0;
  let notApplicable = 0;
  const problems: string[] = [];
  const solvedNotes: string[] = [];
  for (const seed of session.seeds) {
    try {
      const result = await play(session, seed);
      if (result === null) notApplicable += 1;
      else {
        const { verdict } = result;
        if (verdict.success) {
          solved += 1;
          if (bound.atMost !== undefined && solvedNotes.length < 5) solvedNotes.push(`seed ${seed} solved (reward ${verdict.reward})${result.description === undefined ? "" : `: ${result.description}`}`);
        } else if (bound.atLeast !== undefined) problems.push(`seed ${seed}: not solved (reward ${verdict.reward}, ${JSON.stringify(verdict.breakdown)})`);
      }
    } catch (error) {
      problems.push(`seed ${seed}: ${describeModuleError(error)}`);
    }
    if (session.runner.stopped !== null) {
      problems.push(`stopped at seed ${seed}: ${session.runner.stopped}`);
      break;
    }
  }
  const total = session.seeds.length - notApplicable;
  const fraction = total === 0 ? 0 : solved / total;
  const limit = bound.atLeast !== undefined ? `needs ≥ ${bound.atLeast * 100}%` : `allowed ≤ ${(bound.atMost ?? 0) * 100}%`;
  const skipped = notApplicable > 0 ? `; ${notApplicable} seeds offer no such play that changes the final state` : "";
  const summary = `solved ${solved}/${total} seeds (${(fraction * 100).toFixed(1)}%, ${limit}${skipped})`;
  const passed = bound.atLeast !== undefined ? fraction >= bound.atLeast && session.runner.stopped === null : fraction <= (bound.atMost ?? 0) && problems.length === 0;
  const solvedList = bound.atMost !== undefined && solved > solvedNotes.length ? [...solvedNotes, `… ${solved - solvedNotes.length} more solved seeds`] : solvedNotes;
  return { name, passed, details: [summary, ...solvedList, ...problems] };
}

function toolsGate(runner: ModuleRunner, target: SynthesisTarget): GateResult {
  const tools = targetTools(target);
  const problems = runner.tools.flatMap((tool) => toolSchemaProblems(tool, tools, runner.newTools));
  const declaredNew = runner.newTools.map((entry) => `${entry.name} (new: ${quoteModuleText(entry.reason, 200)})`);
  return {
    name: GATE_NAMES[1],
    passed: problems.length === 0,
    details: problems.length === 0 ? [`${runner.tools.length} tools match ${target.name}${declaredNew.length > 0 ? `; ${declaredNew.join("; ")}` : ""}`] : problems,
  };
}

function truncate(text: string): string {
  return text.length > 160 ? `${text.slice(0, 160)}…` : text;
}
