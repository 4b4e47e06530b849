/**
 * The synthesize stage: one environment per kept capability, recorded in `environments/<capability>/` and
 * `environments/index.json`.
 * - `generated` (the paper's method): the generator role writes a module; it is run in the sandbox through the
 *   validation gates and calibrated on the base policy, and regenerated with the failing report fed back (at most
 *   `environments.maxAttempts` generations). A capability whose environment never passes is reported and skipped,
 *   never trained. Finished capabilities are not redone on resume.
 * - `hand-written`: the module that `environments.map` names, checked (its ground-truth solution must reach reward 1
 *   on the validation seeds). Unmapped capabilities are reported and skipped.
 * Generated modules are only ever written by the generation step; nothing here overwrites one.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import type { CapabilityEnvironmentEntry, EnvironmentIndex } from "../run/environment-index.js";
import { calibrationStatisticsSchema } from "../run/environment-index.js";
import { synthesizeRun, type KeptCapability } from "../synthesis/generation/synthesize-run.js";
import { playSolution } from "../envs/modules/module-policies.js";
import type { CustomEnvironment } from "../envs/custom/custom-environment.js";
import { customSynthesisTarget, parseSynthesisTarget, type SynthesisTarget } from "../synthesis/validation/target-tools.js";
import { allAgentTools, type ToolSandboxEnvironment } from "../envs/toolsandbox/environment.js";
import { calibrateDifficulty, formatCalibrationReport, type CalibrationOptions, type CalibrationReport } from "../synthesis/calibration/calibrate-module.js";
import { roleClient } from "./endpoints.js";
import type { PipelineContext } from "./pipeline-context.js";
import { remainingTime } from "./stage-progress.js";
import { loadTargetDomains } from "./target-tasks.js";
import { TraceError } from "../spec/trace-error.js";

/** A ground-truth solution that does not reach reward 1: the environment is unusable. */
export class EnvironmentValidationError extends TraceError {
  override readonly name = "EnvironmentValidationError";
  constructor(
    readonly capability: string,
    readonly seed: number,
    readonly reward: number,
  ) {
    super(`environment of ${capability}: the ground-truth solution of seed ${seed} gets reward ${reward}, not 1`, { category: "sandbox" });
  }
}

const range = (count: number): number[] => Array.from({ length: count }, (_, index) => index);

/** Plays the ground truth of every validation seed; throws when one does not reach reward 1. */
async function validate(context: PipelineContext, entry: CapabilityEnvironmentEntry): Promise<CapabilityEnvironmentEntry["validation"]> {
  const runner = await context.environment(entry);
  const validation: CapabilityEnvironmentEntry["validation"] = [];
  for (const seed of context.config.environments.validationSeeds) {
    const verdict = await playSolution(runner, seed);
    if (verdict.reward !== 1) throw new EnvironmentValidationError(entry.capability, seed, verdict.reward);
    validation.push({ seed, reward: verdict.reward });
  }
  return validation;
}

/** The τ² domain a capability's failed examples (`airline:12`, …) mostly come from; the first configured one otherwise. */
function targetOf(domains: readonly string[]): (capability: KeptCapability) => SynthesisTarget {
  return (capability) => {
    const counts = new Map<string, number>();
    for (const key of capability.example_failed_cases) {
      const domain = key.split(":")[0]!;
      if (domains.includes(domain)) counts.set(domain, (counts.get(domain) ?? 0) + 1);
    }
    const best = [...counts].sort((left, right) => right[1] - left[1])[0]?.[0] ?? domains[0]!;
    return parseSynthesisTarget(`tau2-${best}`);
  };
}

const NO_POLICY = "(the target's policy is not available; keep to the tools' own constraints)";

/** What generated modules keep to: τ²'s domain of each capability's failed examples, or the user's target (its tools and policy). */
async function synthesisTargets(context: PipelineContext): Promise<{ pickTarget: SynthesisTarget | ((capability: KeptCapability) => SynthesisTarget); policyText: string }> {
  const { target } = context.config;
  if (target.kind === "module" || target.kind === "mcp") {
    const [domain] = await loadTargetDomains(context.config);
    const environment = domain!.environment as CustomEnvironment;
    return { pickTarget: customSynthesisTarget(environment.name, environment.target.tools), policyText: environment.target.policy ?? NO_POLICY };
  }
  if (target.kind === "toolsandbox") {
    const [domain] = await loadTargetDomains(context.config);
    const environment = domain!.environment as ToolSandboxEnvironment;
    return { pickTarget: customSynthesisTarget(environment.name, allAgentTools(environment.data)), policyText: environment.systemPrompt(domain!.tasks[0]!) };
  }
  const policyFile = target.dataDirectory === undefined ? undefined : path.join(target.dataDirectory, target.domains[0]!, "policy.md");
  return { pickTarget: targetOf(target.domains), policyText: policyFile !== undefined && existsSync(policyFile) ? readFileSync(policyFile, "utf8") : NO_POLICY };
}

/** Logs calibration progress at every quarter, with the time left. */
function calibrationProgress(context: PipelineContext): (done: number, total: number) => void {
  let started = Date.now();
  return (done, total) => {
    if (done === 1) started = Date.now();
    const quarter = Math.max(1, Math.ceil(total / 4));
    if (done % quarter === 0 || done === total) context.log(`    calibration: ${done}/${total} episodes, eta ${remainingTime(done, total, (Date.now() - started) / 1000)}`);
  };
}

/** The entry's calibration statistics and chosen difficulty level, from a calibration report (as stored). */
function calibrationFields(report: unknown): Pick<CapabilityEnvironmentEntry, "calibration" | "difficulty"> {
  const parsed = calibrationStatisticsSchema.safeParse(report);
  if (!parsed.success) return {};
  const statistics = parsed.data;
  const level = (report as Partial<CalibrationReport>).difficulty?.level;
  return {
    calibration: { meanReward: statistics.meanReward, successRate: statistics.successRate, rewardStd: statistics.rewardStd, allZeroFraction: statistics.allZeroFraction, allOneFraction: statistics.allOneFraction, seeds: statistics.seeds, samples: statistics.samples },
    ...(typeof level === "number" ? { difficulty: level } : {}),
  };
}

/** Calibration sampling seeds start here (plus `target.seed`), apart from the base rollouts' and the evaluation's seeds. */
const CALIBRATION_SEED_BASE = 8_000_000;

/** The calibration options of the run's configuration (what generated and, when asked, hand-written modules go through). */
function calibrationOptions(context: PipelineContext): Omit<CalibrationOptions, "runner" | "policy"> {
  const { config } = context;
  const { seeds, samples, temperature, rounds, standardErrors, steerByExtremeGroups, ...targets } = config.environments.calibration;
  return {
    seeds: range(seeds),
    samples,
    rounds,
    standardErrors,
    steerByExtremeGroups,
    sampling: { temperature, ...(config.training.maxTokens === undefined ? {} : { maxTokens: config.training.maxTokens }) },
    samplingSeedStart: CALIBRATION_SEED_BASE + config.target.seed,
    concurrency: config.training.concurrency,
    targets,
    onEpisode: calibrationProgress(context),
    ...(config.training.maxSteps === undefined ? {} : { maxSteps: config.training.maxSteps }),
  };
}

async function generatedEnvironments(context: PipelineContext, index: EnvironmentIndex): Promise<void> {
  const { config, run } = context;
  const { environments } = config;
  const { pickTarget, policyText } = await synthesisTargets(context);
  const outcomes = await synthesizeRun({
    analysisDirectory: run.analysisDirectory(config.analysis.labeler),
    environmentDirectory: (capability) => run.environmentDirectory(capability),
    storeFile: run.storeFile,
    target: pickTarget,
    policyText,
    generator: roleClient(config, "generator"),
    temperature: environments.temperature,
    calibrationPolicy: await context.sampler(),
    calibration: calibrationOptions(context),
    validation: { seeds: range(environments.gateSeeds) },
    maxAttempts: environments.maxAttempts,
    write: (line) => context.log(`  ${line}`),
  });
  const selected = new Map(run.readSelectedCapabilities(config.analysis.labeler).map((row) => [row.skill, row]));
  for (const outcome of outcomes) {
    const directory = run.environmentDirectory(outcome.capability);
    const report = run.readEnvironmentReport(outcome.capability);
    if (!report.done) {
      const last = report.attempts.at(-1);
      index.skipped.push({ capability: outcome.capability, reason: `no generated environment passed the gates and calibration in ${report.attempts.length} attempts; last: ${(last?.report ?? "no report").split("\n").slice(0, 3).join(" / ")}` });
      context.log(`  ${outcome.capability}: skipped (no environment passed; see ${run.relative(directory)}/report.json)`);
      continue;
    }
    const kept = report.attempts.find((attempt) => attempt.attempt === report.bestAttempt);
    const entry: CapabilityEnvironmentEntry = {
      capability: outcome.capability,
      description: selected.get(outcome.capability)?.description ?? "",
      module: run.relative(run.environmentModuleFile(outcome.capability)),
      source: "generated",
      validation: [],
      ...calibrationFields(kept?.calibration),
    };
    entry.validation = await validate(context, entry);
    run.writeEnvironmentEntry(entry);
    index.environments.push(entry);
  }
}

async function handWrittenEnvironments(context: PipelineContext, index: EnvironmentIndex): Promise<void> {
  const { config, run } = context;
  for (const capability of run.readSelectedCapabilities(config.analysis.labeler).filter((row) => row.status === "kept")) {
    const module = config.environments.map[capability.skill];
    if (module === undefined) {
      index.skipped.push({ capability: capability.skill, reason: "no environment configured (environments.map)" });
      context.log(`  ${capability.skill}: no environment configured (environments.map), skipped`);
      continue;
    }
    const entry: CapabilityEnvironmentEntry = { capability: capability.skill, description: capability.description, module, source: "hand-written", validation: [] };
    entry.validation = await validate(context, entry);
    if (config.environments.calibrateHandWritten) {
      // Nothing to regenerate: the module is kept at the level calibration found best, in the window or not (reported).
      context.log(`  ${capability.skill}: calibrating ${module} on the base policy`);
      const report = await calibrateDifficulty({ ...calibrationOptions(context), runner: await context.environment(entry), policy: await context.sampler() });
      for (const line of formatCalibrationReport(report).split("\n")) context.log(`    ${line.trim()}`);
      Object.assign(entry, calibrationFields(report));
      if (entry.difficulty !== undefined) entry.validation = await validate(context, entry); // the ground truth at the chosen level too
    }
    run.writeEnvironmentEntry(entry);
    index.environments.push(entry);
    context.log(`  ${capability.skill}: hand-written ${module}${entry.difficulty === undefined ? "" : ` at difficulty ${entry.difficulty}`}, ground truth 1.0 on seeds ${config.environments.validationSeeds.join(", ")}`);
  }
}

/** Writes the environments of the kept capabilities; returns a one-line summary. */
export async function runSynthesizeStage(context: PipelineContext): Promise<string> {
  const { config } = context;
  const index: EnvironmentIndex = { environments: [], skipped: [] };
  if (config.environments.source === "generated") await generatedEnvironments(context, index);
  else await handWrittenEnvironments(context, index);
  context.run.writeEnvironmentIndex(index);
  const describe = (entry: CapabilityEnvironmentEntry) => (entry.source === "generated" ? `${entry.capability} (generated)` : `${entry.capability} → ${entry.module}`);
  return `${index.environments.length} environments (${index.environments.map(describe).join(", ") || "none"}); skipped: ${index.skipped.map((skipped) => skipped.capability).join(", ") || "none"}`;
}
