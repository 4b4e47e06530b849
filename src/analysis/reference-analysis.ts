/**
 * Offline analysis of a run with the reference labeler: every finished τ² episode labeled against its task's gold,
 * written as one run file (the labeler is deterministic, so N runs would be N copies: one run, kept when it passes,
 * i.e. min-runs 1), stored in the store's labels table as run `reference`, aggregated and reported.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { loadTau2Domain } from "../envs/tau2/domains.js";
import type { Tau2DomainData } from "../envs/tau2/domain-data.js";
import type { Tau2Task } from "../envs/tau2/task-schema.js";
import type { EpisodeRecord, TrajectoryStore } from "../store/trajectory-store.js";
import type { AggregationThresholds } from "./aggregate-capabilities.js";
import { aggregateDirectory, CANDIDATES_FILE, type ScoresFile } from "./analysis-directory.js";
import { buildRunFile, type LabeledTrajectory } from "./build-run-file.js";
import { MissingDataDirectoryError } from "./missing-data-directory-error.js";
import type { CandidateCapability } from "./candidates-file.js";
import { REFERENCE_CAPABILITIES } from "./reference-capabilities.js";
import { referenceLabels } from "./reference-labeler.js";
import { runFileName, type RunFile } from "./run-file.js";
import { trajectoryKey } from "./trajectory-key.js";
import { UnsupportedEnvironmentError } from "./unsupported-environment-error.js";
import { writeJsonFile } from "./write-json-file.js";

/** The store's run name for reference labels. */
export const REFERENCE_RUN = "reference";

/** The sub-directory of `analysis/` that holds the reference labeler's analysis. */
export const REFERENCE_DIRECTORY = "reference";

function domainOf(environment: string): "airline" | "retail" {
  if (environment === "tau2-airline") return "airline";
  if (environment === "tau2-retail") return "retail";
  throw new UnsupportedEnvironmentError(environment);
}

/**
 * The directory of a domain's `tasks.json`: `dataDirectory/<domain>` (τ²-bench's `data/tau2`) or `dataDirectory`
 * itself (a domain directory), else the `dataDir` a rollout recorded in the run's `config.json`.
 */
function resolveDomainDirectory(environment: string, dataDirectory: string | undefined, configuredDirectory: string | undefined): string {
  const domain = domainOf(environment);
  const candidates = dataDirectory === undefined ? (configuredDirectory === undefined ? [] : [configuredDirectory]) : [path.join(dataDirectory, domain), dataDirectory];
  const found = candidates.find((directory) => existsSync(path.join(directory, "tasks.json")));
  if (found === undefined) throw new MissingDataDirectoryError(environment, candidates);
  return found;
}

/** Labels finished episodes against their tasks' gold; `domainData` gives each environment's τ² data. */
function labelWithReference(episodes: readonly EpisodeRecord[], domainData: (environment: string) => Tau2DomainData): LabeledTrajectory[] {
  const tasks = new Map<string, Map<string, Tau2Task>>();
  return episodes.map((episode) => {
    const data = domainData(episode.environment);
    let byId = tasks.get(episode.environment);
    if (byId === undefined) {
      byId = new Map(data.tasks.map((task) => [task.id, task]));
      tasks.set(episode.environment, byId);
    }
    const task = byId.get(episode.taskId);
    if (task === undefined) throw new MissingDataDirectoryError(`${episode.environment} task ${episode.taskId}`, [data.directory]);
    return { key: trajectoryKey(episode), failed: episode.success !== true, labels: referenceLabels(data, task, episode.messages ?? []) };
  });
}

export interface ReferenceAnalysisOptions {
  store: TrajectoryStore;
  /** τ²-bench's `data/tau2` directory or a domain directory; defaults to the run's configured data directory. */
  dataDirectory?: string;
  configuredDirectory?: string;
  /** Where the analysis goes (run file, candidates, selection, scores). */
  outDirectory: string;
  thresholds: Omit<AggregationThresholds, "minRuns">;
}

/** Labels every finished episode, writes the run file and the aggregation; returns both. */
export function runReferenceAnalysis(options: ReferenceAnalysisOptions): { run: RunFile; scores: ScoresFile } {
  const loaded = new Map<string, Tau2DomainData>();
  const domainData = (environment: string): Tau2DomainData => {
    let data = loaded.get(environment);
    if (data === undefined) {
      data = loadTau2Domain(domainOf(environment), resolveDomainDirectory(environment, options.dataDirectory, options.configuredDirectory));
      loaded.set(environment, data);
    }
    return data;
  };
  const episodes = options.store.listEpisodes({ status: "finished" });
  const labeled = labelWithReference(episodes, domainData);
  return writeReferenceAnalysis({
    store: options.store,
    labeled: episodes.map((episode, index) => ({ episode, trajectory: labeled[index]! })),
    outDirectory: options.outDirectory,
    thresholds: options.thresholds,
    labeler: "reference (deterministic; one run, min-runs 1)",
  });
}

/** Labeled episodes into the store's labels (run `reference`), the candidates and run files, and the aggregation. */
export function writeReferenceAnalysis(options: {
  store: TrajectoryStore;
  labeled: readonly { episode: EpisodeRecord; trajectory: LabeledTrajectory }[];
  outDirectory: string;
  thresholds: Omit<AggregationThresholds, "minRuns">;
  labeler: string;
  /** The dictionary the labels use [the τ² reference dictionary, which TRACE-mini's module labeler shares]. */
  capabilities?: readonly CandidateCapability[];
}): { run: RunFile; scores: ScoresFile } {
  const capabilities = options.capabilities ?? REFERENCE_CAPABILITIES;
  options.store.upsertLabels(
    options.labeled.flatMap(({ episode, trajectory }) =>
      Object.entries(trajectory.labels).map(([capability, label]) => ({ environment: episode.environment, taskId: episode.taskId, trial: episode.trial, capability, run: REFERENCE_RUN, label })),
    ),
  );
  const run = buildRunFile({ attempt: 1, capabilities: capabilities.map((capability) => capability.name), trajectories: options.labeled.map(({ trajectory }) => trajectory) });
  writeJsonFile(path.join(options.outDirectory, CANDIDATES_FILE), { candidates: capabilities });
  writeJsonFile(path.join(options.outDirectory, runFileName(1)), run);
  const scores = aggregateDirectory({ runsDirectory: options.outDirectory, thresholds: { ...options.thresholds, minRuns: 1 }, labeler: options.labeler });
  return { run, scores };
}
