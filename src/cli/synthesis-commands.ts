/** `trace env check`, `trace env try` and `trace synthesize`: validate, play and generate capability environments. */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import { createChatClient } from "../models/chat-client.js";
import { openRunDirectory, type RunDirectory } from "../run/run-directory.js";
import type { ChatClient } from "../models/chat-client.js";
import { calibrateDifficulty, formatCalibrationReport } from "../synthesis/calibration/calibrate-module.js";
import type { CalibrationReport } from "../synthesis/calibration/calibrate-module.js";
import { synthesizeRun } from "../synthesis/generation/synthesize-run.js";
import { loadSandboxedModule } from "../synthesis/sandbox/sandboxed-module-runner.js";
import { solutionReply } from "../envs/modules/module-policies.js";
import { verifierInputFromCalls } from "../envs/modules/verifier-input.js";
import { formatValidationReport } from "../synthesis/validation/gate-result.js";
import { describeModuleError, escapeControlCharacters, quoteModuleText } from "../synthesis/validation/module-text.js";
import { parseSynthesisTarget, targetDomain } from "../synthesis/validation/target-tools.js";
import type { SynthesisTarget } from "../synthesis/validation/target-tools.js";
import { validateModuleSource } from "../synthesis/validation/validate-module.js";
import { addEndpointOptions, endpointOption } from "./endpoint-options.js";
import { integerOption } from "./integer-option.js";
import { addRunDirectoryArgument } from "./run-directory-option.js";
import { readRunManifest, runEnvironments } from "./run-manifest.js";
import { UsageError } from "./usage-error.js";

/** Options of `trace env check`. */
export interface EnvCheckOptions {
  target: string;
  seeds?: string;
  policyUrl?: string;
  policyModel?: string;
  policyApiKey?: string;
  calibrationSeeds?: string;
  calibrationRounds?: string;
  calibrationStandardErrors?: string;
  /** A level in the window with too many all-0 (all-1) groups moves the level search easier (harder). */
  calibrationSteerByExtremeGroups?: boolean;
  samples?: string;
  json?: boolean;
  /** Run every gate; by default the first failing gate stops the check (a timeout always does). */
  allGates?: boolean;
}

/** The calibration policy of `--policy-url/-model/-api-key`, when given. */
function policyClient(options: object): ChatClient | undefined {
  const policy = endpointOption(options, "policy");
  return policy === undefined ? undefined : createChatClient({ baseUrl: policy.url, model: policy.model, apiKey: policy.apiKey });
}

const range = (count: number): number[] => Array.from({ length: count }, (_, index) => index);

/** A module file's source, or a one-line UsageError naming the path when it cannot be read. */
function readModuleSource(modulePath: string): string {
  try {
    return readFileSync(modulePath, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw new UsageError(`module file not found: ${JSON.stringify(modulePath)}`);
    throw new UsageError(`cannot read the module file ${JSON.stringify(modulePath)}: ${code ?? (error instanceof Error ? error.message : String(error))}`);
  }
}

/** JSON of a module-produced value, safe on one terminal line. */
const moduleJson = (value: unknown): string => escapeControlCharacters(JSON.stringify(value));

/**
 * Validates a module file in the sandbox (and calibrates it when a policy endpoint is given); true when all passed.
 * The first failing gate stops the check unless `allGates`.
 */
export async function runEnvCheck(modulePath: string, options: EnvCheckOptions, write: (line: string) => void): Promise<boolean> {
  const seeds = integerOption("--seeds", options.seeds ?? "100", 1);
  const calibrationSeeds = integerOption("--calibration-seeds", options.calibrationSeeds ?? "16", 1);
  const samples = integerOption("--samples", options.samples ?? "4", 1);
  const rounds = integerOption("--calibration-rounds", options.calibrationRounds ?? "1", 1);
  const standardErrors = Number(options.calibrationStandardErrors ?? "0");
  if (!(standardErrors >= 0)) throw new UsageError(`--calibration-standard-errors must be a number ≥ 0, got ${JSON.stringify(options.calibrationStandardErrors)}`);
  const target = parseSynthesisTarget(options.target);
  const policy = policyClient(options);
  const source = readModuleSource(modulePath);
  const report = await validateModuleSource({ source, target, seeds: range(seeds), stopAtFirstFailure: options.allGates !== true });
  write(formatValidationReport(report));
  if (report.stoppedAtFirstFailure === true) write("stopped at the first failing gate; --all-gates runs every gate");
  let calibration: CalibrationReport | null = null;
  if (policy !== undefined && report.passed) {
    const runner = await loadSandboxedModule({ source });
    try {
      calibration = await calibrateDifficulty({ runner, policy, seeds: range(calibrationSeeds), samples, rounds, standardErrors, steerByExtremeGroups: options.calibrationSteerByExtremeGroups === true });
    } finally {
      await runner.dispose();
    }
    write(formatCalibrationReport(calibration));
  } else if (policy !== undefined) write("calibration skipped: the module fails a gate");
  const passed = report.passed && (calibration === null || calibration.passed);
  if (options.json) write(moduleJson({ passed, validation: report, calibration }));
  return passed;
}

/**
 * Prints the instance of a seed and plays its ground truth, call by call, then the verdict; true when it succeeds.
 * Everything the module produced is shown quoted or as JSON, control characters escaped; a module failure is one line.
 */
export async function runEnvTry(modulePath: string, options: { seed: string }, write: (line: string) => void): Promise<boolean> {
  const seed = integerOption("--seed", options.seed, 0);
  const source = readModuleSource(modulePath);
  let runner;
  try {
    runner = await loadSandboxedModule({ source });
  } catch (error) {
    write(`the module did not load: ${describeModuleError(error)}`);
    return false;
  }
  try {
    const instance = await runner.generate(seed);
    write(`${escapeControlCharacters(runner.capability)} seed ${seed}`);
    write(`request: ${quoteModuleText(instance.request)}`);
    instance.followUps.forEach((line, index) => write(`follow-up ${index + 1}: ${quoteModuleText(line)}`));
    write(`state: ${moduleJson(instance.state)}`);
    write(`facts: ${moduleJson(instance.facts)}`);
    write(`ground truth (${instance.solution.length} calls):`);
    const reply = solutionReply(instance);
    const input = await verifierInputFromCalls(runner, instance, instance.solution, [reply]);
    for (const call of input.calls) write(`  ${escapeControlCharacters(call.name)}(${moduleJson(call.arguments)})${call.error ? " [error]" : ""}\n    → ${quoteModuleText(call.output)}`);
    write(`reply: ${quoteModuleText(reply)}`);
    const verdict = await runner.verify(input);
    write(`verdict: reward ${verdict.reward}, success ${verdict.success}, breakdown ${moduleJson(verdict.breakdown)}`);
    return verdict.success;
  } catch (error) {
    write(`the module failed: ${describeModuleError(error)}`);
    return false;
  } finally {
    await runner.dispose();
  }
}

/** Options of `trace synthesize`. */
export interface SynthesizeCommandOptions {
  generatorUrl: string;
  generatorModel: string;
  generatorApiKey?: string;
  policyUrl?: string;
  policyModel?: string;
  policyApiKey?: string;
  target?: string;
  dataDir?: string;
  attempts?: string;
}

/**
 * The run's target and policy text: `--target` / `--data-dir`, else what RUN/config.json names (a `trace rollout`
 * manifest's environment, or a `trace run` configuration's first τ² domain).
 */
function runTarget(runDirectory: string, options: SynthesizeCommandOptions): { target: SynthesisTarget; policyText: string } {
  const targetName = options.target ?? runEnvironments(runDirectory)[0];
  if (targetName === undefined) throw new UsageError(`no target: pass --target (tau2-airline or tau2-retail); ${openRunDirectory(runDirectory).configFile} names none`);
  const target = parseSynthesisTarget(targetName);
  const dataDir = options.dataDir ?? readRunManifest(runDirectory, target.name, targetDomain(target)).dataDirectory;
  const policyFile = dataDir === undefined ? undefined : path.join(dataDir, "policy.md");
  const policyText = policyFile !== undefined && existsSync(policyFile) ? readFileSync(policyFile, "utf8") : "(the target's policy is not available; keep to the tools' own constraints)";
  return { target, policyText };
}

/** Where the run's kept capabilities are: `analysis/`, or `analysis/reference/` for a `trace run` with the reference labeler. */
function keptCapabilitiesDirectory(run: RunDirectory): string {
  const file = run.configFile;
  const labeler = existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as { analysis?: { labeler?: unknown } }).analysis?.labeler : undefined;
  return run.analysisDirectory(labeler === "reference" ? "reference" : "llm");
}

/** Synthesizes every kept capability of a run (resumable). */
export async function runSynthesize(runDirectory: string, options: SynthesizeCommandOptions, write: (line: string) => void): Promise<boolean> {
  const { target, policyText } = runTarget(runDirectory, options);
  const generatorEndpoint = endpointOption(options, "generator");
  if (generatorEndpoint === undefined) throw new UsageError("trace synthesize needs --generator-url and --generator-model");
  const generator = createChatClient({ baseUrl: generatorEndpoint.url, model: generatorEndpoint.model, timeoutMs: 600_000, apiKey: generatorEndpoint.apiKey });
  const calibrationPolicy = policyClient(options);
  const run = openRunDirectory(runDirectory);
  const outcomes = await synthesizeRun({
    analysisDirectory: keptCapabilitiesDirectory(run),
    environmentDirectory: (capability) => run.environmentDirectory(capability),
    storeFile: run.storeFile,
    target,
    policyText,
    generator,
    ...(calibrationPolicy === undefined ? {} : { calibrationPolicy }),
    maxAttempts: integerOption("--attempts", options.attempts ?? "5", 1),
    write,
  });
  const done = outcomes.filter((outcome) => outcome.done).length;
  write(`${done}/${outcomes.length} capabilities synthesized`);
  return done === outcomes.length;
}

/** Registers `env check`, `env try` and `synthesize`. */
export function registerSynthesisCommands(program: Command): void {
  const write = (line: string) => void process.stdout.write(line + "\n");
  const environment = program.command("env").description("capability environment modules (TRACE step 3)");
  const check = environment
    .command("check")
    .description("run the validation gates on a module in the sandbox; calibrate it when a policy endpoint is given")
    .argument("<module>", "the module's TypeScript file")
    .option("--target <target>", "tau2-airline or tau2-retail (whose tool schemas the module must keep)", "tau2-airline")
    .option("--seeds <n>", "seeds the policies are played on", "100");
  addEndpointOptions(check, "policy", "the base policy", { purpose: "for calibration" })
    .option("--calibration-seeds <n>", "seeds for calibration", "16")
    .option("--calibration-rounds <n>", "most calibration rounds: another runs on the next seeds while a reading is near a window edge", "1")
    .option("--calibration-standard-errors <z>", "standard errors that make a difference real: near an edge takes another round; a level leaves the initial one only when nearer the window by more", "0")
    .option("--calibration-steer-by-extreme-groups", "a level whose mean is in the window but whose groups are all 0 (all 1) too often moves the level search easier (harder)")
    .option("--samples <k>", "episodes per calibration seed", "4")
    .option("--json", "end with one JSON line {passed, validation, calibration}")
    .option("--all-gates", "run every gate (by default the first failing gate stops the check; a timeout always does)")
    .action(async (modulePath: string, options: EnvCheckOptions) => {
      if (!(await runEnvCheck(modulePath, options, write))) process.exitCode = 2;
    });
  environment
    .command("try")
    .description("print a seed's instance and play its ground truth, showing every call's output and the verdict")
    .argument("<module>", "the module's TypeScript file")
    .option("--seed <n>", "the seed", "0")
    .action(async (modulePath: string, options: { seed: string }) => {
      if (!(await runEnvTry(modulePath, options, write))) process.exitCode = 2;
    });
  const synthesize = addRunDirectoryArgument(program.command("synthesize").description("write a capability environment for every kept capability of RUN/analysis/selected_capabilities.json"));
  addEndpointOptions(synthesize, "generator", "the LLM that writes modules", { required: true });
  addEndpointOptions(synthesize, "policy", "the base policy", { purpose: "for calibration (skipped without it)" })
    .option("--target <target>", "tau2-airline or tau2-retail (default: RUN/config.json's env)")
    .option("--data-dir <dir>", "the target's τ² data directory, for policy.md (default: RUN/config.json's dataDir)")
    .option("--attempts <n>", "generation attempts per capability", "5")
    .action(async (runDirectory: string, options: SynthesizeCommandOptions) => {
      if (!(await runSynthesize(runDirectory, options, write))) process.exitCode = 2;
    });
}
