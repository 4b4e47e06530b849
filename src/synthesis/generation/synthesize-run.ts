/**
 * `trace synthesize RUN` and the pipeline's synthesize stage: every kept capability of an analysis directory's
 * `selected_capabilities.json` → an environment directory per capability (`module.ts`, `report.json`). The caller
 * names the directories (a run's layout belongs to `src/run/`).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { SELECTED_FILE } from "../../analysis/analysis-directory.js";
import { failedTrajectoryExamples } from "./failed-trajectory-examples.js";
import { z } from "zod";
import type { ChatClient } from "../../models/chat-client.js";
import type { SynthesisTarget } from "../validation/target-tools.js";
import { ENVIRONMENT_REPORT_FILE, MODULE_FILE, readEnvironmentReport, type EnvironmentReportFile } from "./environment-directory.js";
import type { GenerateModuleOptions, GenerationResult } from "./generate-module.js";
import { attemptReport, generateModule } from "./generate-module.js";
import { TraceError } from "../../spec/trace-error.js";

const selectedSchema = z.array(
  z.looseObject({ skill: z.string().regex(/^[a-z0-9_]+$/), description: z.string(), example_failed_cases: z.array(z.string()).default([]), status: z.string().default("kept") }),
);

/** A missing or malformed `selected_capabilities.json`. */
export class SelectedCapabilitiesError extends TraceError {
  override readonly name = "SelectedCapabilitiesError";
  constructor(
    readonly file: string,
    readonly problems: readonly string[],
  ) {
    super(`${file}: ${problems.join("; ")}`, { category: "data" });
  }
}

/** Options of `synthesizeRun`. */
export interface SynthesizeRunOptions extends Pick<GenerateModuleOptions, "policyText" | "generator" | "calibration" | "validation" | "maxAttempts" | "temperature"> {
  /** The analysis directory holding `selected_capabilities.json` (`RUN/analysis` or `RUN/analysis/reference`). */
  analysisDirectory: string;
  /** Where a capability's environment goes (`RUN/environments/<capability>`). */
  environmentDirectory: (capability: string) => string;
  /** The trajectory store whose failed episodes are shown to the generator (`RUN/store.sqlite`; may not exist). */
  storeFile: string;
  /** The target whose tool schemas the modules keep; a function picks it per capability (e.g. by its failed examples' domain). */
  target: SynthesisTarget | ((capability: KeptCapability) => SynthesisTarget);
  calibrationPolicy?: ChatClient;
  write?: (line: string) => void;
}

/** A kept capability as `selected_capabilities.json` gives it. */
export interface KeptCapability {
  skill: string;
  description: string;
  example_failed_cases: string[];
}

/** Reads the kept capabilities of an analysis directory. */
function readKeptCapabilities(analysisDirectory: string): KeptCapability[] {
  const file = path.join(analysisDirectory, SELECTED_FILE);
  if (!existsSync(file)) throw new SelectedCapabilitiesError(file, ["not found (run `trace analyze` first)"]);
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new SelectedCapabilitiesError(file, [error instanceof Error ? error.message : String(error)]);
  }
  const parsed = selectedSchema.safeParse(value);
  if (!parsed.success) throw new SelectedCapabilitiesError(file, parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`));
  return parsed.data.filter((row) => row.status === "kept");
}

/**
 * Synthesizes every kept capability; skips those whose `report.json` says done (resumable). A capability whose
 * generations all fail keeps its best attempt and report (`done: false`), so a rerun generates it again.
 */
export async function synthesizeRun(options: SynthesizeRunOptions): Promise<{ capability: string; done: boolean; skipped: boolean }[]> {
  const write = options.write ?? (() => undefined);
  const outcomes: { capability: string; done: boolean; skipped: boolean }[] = [];
  for (const row of readKeptCapabilities(options.analysisDirectory)) {
    const target = typeof options.target === "function" ? options.target(row) : options.target;
    const directory = options.environmentDirectory(row.skill);
    if (existsSync(path.join(directory, ENVIRONMENT_REPORT_FILE)) && readEnvironmentReport(directory).done) {
      write(`${row.skill}: done already, skipped`);
      outcomes.push({ capability: row.skill, done: true, skipped: true });
      continue;
    }
    write(`${row.skill}: generating`);
    const result = await generateModule({
      ...options,
      target,
      capability: row.skill,
      description: row.description,
      examples: failedTrajectoryExamples(options.storeFile, row.example_failed_cases),
      onAttempt: (attempt) => write(`${row.skill}: attempt ${attempt.attempt} ${attempt.passed ? "passed" : "failed"}${attempt.passed ? "" : `\n${indent(attemptReport(attempt))}`}`),
    });
    writeEnvironment(directory, row.skill, target, result);
    write(`${row.skill}: ${result.done ? "done" : "not done"} (kept attempt ${result.best.attempt} of ${result.attempts.length}) → ${directory}`);
    outcomes.push({ capability: row.skill, done: result.done, skipped: false });
  }
  return outcomes;
}

function writeEnvironment(directory: string, capability: string, target: SynthesisTarget, result: GenerationResult): void {
  mkdirSync(directory, { recursive: true });
  if (result.best.source !== null) writeFileSync(path.join(directory, MODULE_FILE), result.best.source);
  const report: EnvironmentReportFile = {
    capability,
    target: target.name,
    done: result.done,
    bestAttempt: result.best.attempt,
    attempts: result.attempts.map((attempt) => ({ attempt: attempt.attempt, passed: attempt.passed, problem: attempt.problem, report: attemptReport(attempt), validation: attempt.validation, calibration: attempt.calibration })),
  };
  writeFileSync(path.join(directory, ENVIRONMENT_REPORT_FILE), JSON.stringify(report, null, 2) + "\n");
}

function indent(text: string): string {
  return text
    .split("\n")
    .map((line) => `    ${line}`)
    .join("\n");
}
