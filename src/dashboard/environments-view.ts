/**
 * The environments view: each kept capability's environment — its source (a generated module's code, or the
 * hand-written module's name), the gates and calibration of the kept generation attempt with the reward histogram,
 * the capabilities skipped and why, and a few solved and failed episodes GRPO sampled on it.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import type { TopLevelSpec } from "vega-lite";
import type { CapabilityEnvironmentEntry, SkippedCapability } from "../run/environment-index.js";
import type { RunDirectory } from "../run/run-directory.js";
import type { TrainingEpisodeSummary } from "../store/training-episodes.js";
import { ENVIRONMENT_REPORT_FILE } from "../synthesis/generation/environment-directory.js";
import { handWrittenModuleSource } from "../synthesis/generation/generation-context.js";
import { rewardHistogramSpec } from "./chart-specs.js";
import { checkRunDirectory, withExistingStore } from "./dashboard-run.js";

export interface GateResult {
  name: string;
  passed: boolean;
  details: string[];
}

export interface EnvironmentCard {
  entry: CapabilityEnvironmentEntry;
  /** The module's code: the generated module, or a hand-written τ² module's source file; null when not found. */
  source: string | null;
  /** Gates of the kept attempt (generated environments). */
  gates: GateResult[];
  attempts: { attempt: number; passed: boolean; problem: string | null }[];
  /** Calibration rewards of the kept attempt, all groups together. */
  calibrationRewards: number[];
  histogram: TopLevelSpec | null;
  /** A few solved and failed training episodes of the capability's adapter. */
  solved: TrainingEpisodeSummary[];
  failed: TrainingEpisodeSummary[];
}

export interface EnvironmentsView {
  environments: EnvironmentCard[];
  skipped: SkippedCapability[];
  notices: string[];
}

/** Episodes of each kind shown per environment. */
const EXAMPLES = 3;

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
}

/** The kept attempt's gates and calibration rewards from `report.json`, read leniently (its attempts are free-form). */
function readReport(file: string): Pick<EnvironmentCard, "gates" | "attempts" | "calibrationRewards"> {
  if (!existsSync(file)) return { gates: [], attempts: [], calibrationRewards: [] };
  const report = asRecord(JSON.parse(readFileSync(file, "utf8")));
  const attempts = Array.isArray(report.attempts) ? report.attempts.map(asRecord) : [];
  const kept = attempts.find((attempt) => attempt.attempt === report.bestAttempt) ?? attempts.at(-1) ?? {};
  const gates = (Array.isArray(asRecord(kept.validation).gates) ? (asRecord(kept.validation).gates as unknown[]) : []).map((gate) => {
    const record = asRecord(gate);
    return { name: String(record.name), passed: record.passed === true, details: Array.isArray(record.details) ? record.details.map(String) : [] };
  });
  const groups = Array.isArray(asRecord(kept.calibration).groups) ? (asRecord(kept.calibration).groups as unknown[]) : [];
  const calibrationRewards = groups.flatMap((group) => {
    const rewards = asRecord(group).rewards;
    return Array.isArray(rewards) ? rewards.filter((reward): reward is number => typeof reward === "number") : [];
  });
  return {
    gates,
    attempts: attempts.map((attempt) => ({ attempt: Number(attempt.attempt), passed: attempt.passed === true, problem: typeof attempt.problem === "string" ? attempt.problem : null })),
    calibrationRewards,
  };
}

/** Reads `environments/index.json` and each environment's directory. */
export function readEnvironmentsView(run: RunDirectory): EnvironmentsView {
  checkRunDirectory(run);
  if (!existsSync(run.environmentIndexFile)) return { environments: [], skipped: [], notices: ["no environments yet (environments/index.json is written by the synthesize stage)"] };
  const index = run.readEnvironmentIndex();
  const environments = index.environments.map((entry): EnvironmentCard => {
    const generated = entry.source === "generated";
    const moduleFile = generated ? run.moduleFileOf(entry) : null;
    const report = generated ? readReport(path.join(run.environmentDirectory(entry.capability), ENVIRONMENT_REPORT_FILE)) : { gates: [], attempts: [], calibrationRewards: [] };
    const sampled = withExistingStore(run.storeFile, [] as TrainingEpisodeSummary[], (store) => store.training.page({ adapter: entry.capability, limit: 500 }).episodes);
    return {
      entry,
      source: moduleFile !== null ? (existsSync(moduleFile) ? readFileSync(moduleFile, "utf8") : null) : (handWrittenModuleSource(entry.module)?.text ?? null),
      ...report,
      histogram: report.calibrationRewards.length === 0 ? null : rewardHistogramSpec(report.calibrationRewards),
      solved: sampled.filter((episode) => episode.success === true).slice(0, EXAMPLES),
      failed: sampled.filter((episode) => episode.success !== true).slice(0, EXAMPLES),
    };
  });
  return { environments, skipped: index.skipped, notices: index.environments.length === 0 ? ["the synthesize stage kept no environment"] : [] };
}
