/**
 * Offline analysis of a run in capability-module environments with the reference labeler, as `runReferenceAnalysis`
 * does for τ²: every finished episode whose environment resolves to a module environment is labeled against its
 * instance's gold (`module-reference-labeler.ts`), stored in the store's labels table as run `reference`, written as
 * one run file with the reference candidates, and aggregated with min-runs 1 (the labeler is deterministic).
 */
import type { EpisodeRecord, TrajectoryStore } from "../store/trajectory-store.js";
import type { ModuleEnvironment } from "../envs/modules/module-environment.js";
import type { AggregationThresholds } from "./aggregate-capabilities.js";
import type { ScoresFile } from "./analysis-directory.js";
import type { LabeledTrajectory } from "./build-run-file.js";
import { moduleReferenceLabels } from "./module-reference-labeler.js";
import { writeReferenceAnalysis } from "./reference-analysis.js";
import type { RunFile } from "./run-file.js";
import { trajectoryKey } from "./trajectory-key.js";

/** The module environment of an environment name, or undefined when the name is not one. */
export type ModuleEnvironmentResolver = (name: string) => ModuleEnvironment | undefined;

/** An episode with its reference labels. */
export interface ModuleLabeledEpisode {
  episode: EpisodeRecord;
  trajectory: LabeledTrajectory;
}

/**
 * Labels the episodes whose environment `environments` resolves (others are skipped), in order, each against the
 * instance of its task (`seed-N`; an unknown task id throws the environment's `UnknownSeedTaskError`).
 */
async function labelWithModuleReference(episodes: readonly EpisodeRecord[], environments: ModuleEnvironmentResolver): Promise<ModuleLabeledEpisode[]> {
  const labeled: ModuleLabeledEpisode[] = [];
  for (const episode of episodes) {
    const environment = environments(episode.environment);
    if (environment === undefined) continue;
    const instance = environment.instance(environment.task(episode.taskId));
    const labels = await moduleReferenceLabels(environment.runner, instance, episode.messages ?? []);
    labeled.push({ episode, trajectory: { key: trajectoryKey(episode), failed: episode.success !== true, labels } });
  }
  return labeled;
}

export interface ModuleReferenceAnalysisOptions {
  store: TrajectoryStore;
  environments: ModuleEnvironmentResolver;
  /** Where the analysis goes (run file, candidates, selection, scores). */
  outDirectory: string;
  thresholds: Omit<AggregationThresholds, "minRuns">;
}

/** Labels every finished episode of a module environment, writes the run file and the aggregation; returns both. */
export async function runModuleReferenceAnalysis(options: ModuleReferenceAnalysisOptions): Promise<{ run: RunFile; scores: ScoresFile }> {
  const labeled = await labelWithModuleReference(options.store.listEpisodes({ status: "finished" }), options.environments);
  return writeReferenceAnalysis({ ...options, labeled, labeler: "reference (module gold; deterministic; one run, min-runs 1)" });
}
