/**
 * An analysis directory (`RUN/analysis/`, or `RUN/analysis/reference/` for the reference labeler):
 * `candidate_capabilities.json`, `run_01.json` … `run_N.json`, `selected_capabilities.json` (kept capabilities, TRACE
 * reference format), `capability_scores.json` (every capability, kept or rejected, with per-run numbers and the
 * thresholds used) and `report.md`. The caller names the directory (a run's layout belongs to `src/run/`).
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { readJsonFile } from "../envs/core/read-json-file.js";
import { aggregateCapabilities, selectedCapabilities, type AggregationResult, type AggregationThresholds, type CapabilitySelection } from "./aggregate-capabilities.js";
import { candidateDescriptions, readCandidatesFile } from "./candidates-file.js";
import { keepStability } from "./keep-stability.js";
import { NoRunFilesError } from "./no-run-files-error.js";
import { listRunFiles, readRunFile } from "./run-file.js";
import { writeJsonFile } from "./write-json-file.js";

export const CANDIDATES_FILE = "candidate_capabilities.json";
export const SELECTED_FILE = "selected_capabilities.json";
export const SCORES_FILE = "capability_scores.json";
export const REPORT_FILE = "report.md";

/** What `capability_scores.json` holds: the aggregation plus where it came from. */
export interface ScoresFile extends AggregationResult {
  /** The run files aggregated, relative to the runs directory. */
  run_files: string[];
  /** Who labeled: `llm` (with its model) or `reference`; absent when unknown. */
  labeler?: string;
}

const capabilitySelectionObject = z.looseObject({
  skill: z.string(),
  description: z.string(),
  mean_cov: z.number(),
  std_cov: z.number(),
  mean_delta: z.number(),
  std_delta: z.number(),
  n_runs_passed: z.number().int(),
  n_runs_total: z.number().int(),
  passes_consistency: z.boolean(),
  example_failed_cases: z.array(z.string()),
  status: z.enum(["kept", "rejected"]),
});

/** A row of `selected_capabilities.json` (TRACE reference format). */
export const capabilitySelectionSchema: z.ZodType<CapabilitySelection> = capabilitySelectionObject;

const runScoreSchema = z.object({ attempt: z.number(), cov: z.number(), delta: z.number(), er_minus: z.number(), er_plus: z.number(), passed: z.boolean() });

export const scoresFileSchema = z.looseObject({
  thresholds: z.object({ coverage: z.number(), gap: z.number(), minRuns: z.number().int() }),
  runs: z.number().int(),
  run_files: z.array(z.string()),
  labeler: z.string().optional(),
  capabilities: z.array(capabilitySelectionObject.extend({ per_run: z.array(runScoreSchema.nullable()), kept_in_resamples: z.number().min(0).max(1).optional() })),
});

export interface AggregateDirectoryOptions {
  /** Directory holding `run_*.json` and, optionally, `candidate_capabilities.json`. */
  runsDirectory: string;
  /** Where `selected_capabilities.json` goes (default: in `runsDirectory`); `capability_scores.json` goes beside it. */
  out?: string;
  thresholds: AggregationThresholds;
  labeler?: string;
}

/** Reads every run file of a directory (and its candidates), aggregates, and writes the selection and the scores. */
export function aggregateDirectory(options: AggregateDirectoryOptions): ScoresFile {
  const files = listRunFiles(options.runsDirectory);
  if (files.length === 0) throw new NoRunFilesError(options.runsDirectory);
  const runs = files.map((file) => readRunFile(file));
  const candidatesFile = path.join(options.runsDirectory, CANDIDATES_FILE);
  const descriptions = existsSync(candidatesFile) ? candidateDescriptions(readCandidatesFile(candidatesFile)) : new Map<string, string>();
  const aggregated = aggregateCapabilities(runs, { thresholds: options.thresholds, descriptions });
  const stability = keepStability(runs, options.thresholds);
  const result: AggregationResult = {
    ...aggregated,
    capabilities: aggregated.capabilities.map((score) => {
      const share = stability.get(score.skill);
      return share === undefined ? score : { ...score, kept_in_resamples: share };
    }),
  };
  const selectedFile = options.out ?? path.join(options.runsDirectory, SELECTED_FILE);
  const scores: ScoresFile = {
    ...result,
    run_files: files.map((file) => path.relative(options.runsDirectory, file)),
    ...(options.labeler === undefined ? {} : { labeler: options.labeler }),
  };
  writeJsonFile(selectedFile, selectedCapabilities(result));
  writeJsonFile(path.join(path.dirname(selectedFile), SCORES_FILE), scores);
  return scores;
}

/** Reads `capability_scores.json` of an analysis directory. */
export function readScoresFile(directory: string): ScoresFile {
  return readJsonFile(path.join(directory, SCORES_FILE), scoresFileSchema);
}
