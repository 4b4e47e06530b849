/**
 * The analysis view: every capability the analysis scored, with coverage (Cov) and gap (Δ) per labeling run and over
 * runs, kept or rejected against the thresholds, how firm that decision is (the share of resamples of the analysed
 * tasks that keep it; marginal ones named), and each capability's failed trajectories labelled LACKING.
 */
import path from "node:path";
import type { z } from "zod";
import { SCORES_FILE, scoresFileSchema } from "../analysis/analysis-directory.js";
import { marginalCapabilities } from "../analysis/analysis-report.js";
import { readJsonArtifact } from "../run/json-artifact.js";
import type { RunDirectory } from "../run/run-directory.js";
import type { EpisodeKey } from "../store/trajectory-store.js";
import { checkRunDirectory, withExistingStore } from "./dashboard-run.js";

type ScoresFile = z.output<typeof scoresFileSchema>;

/** A failed trajectory labelled LACKING for a capability in `lackingRuns` of the labeling runs that labelled it. */
export interface LackingTrajectory extends EpisodeKey {
  reward: number | null;
  lackingRuns: number;
  labeledRuns: number;
}

export interface AnalysisView {
  /** `analysis/` (LLM analyst) or `analysis/reference/`, relative to the run. */
  directory: string | null;
  scores: ScoresFile | null;
  /** Per capability, its LACKING failed trajectories. */
  lacking: Record<string, LackingTrajectory[]>;
  /** The capabilities whose keep decision is marginal (kept in 10–90% of resamples of the analysed tasks). */
  marginal: string[];
  notices: string[];
}

/** Reads `capability_scores.json` of the run's analysis and the store's labels. */
export function readAnalysisView(run: RunDirectory): AnalysisView {
  checkRunDirectory(run);
  const directory = run.scoredAnalysisDirectory();
  if (directory === undefined) return { directory: null, scores: null, lacking: {}, marginal: [], notices: ["no analysis yet (analysis/capability_scores.json is written by the analyze stage)"] };
  const scores = readJsonArtifact(path.join(directory, SCORES_FILE), scoresFileSchema);
  const lacking = withExistingStore(run.storeFile, {}, (store) => {
    const failed = new Map(
      store
        .pageEpisodes({ status: "finished" })
        .episodes.filter((episode) => episode.success !== true)
        .map((episode) => [`${episode.environment}\u0000${episode.taskId}\u0000${episode.trial}`, episode]),
    );
    const byCapability: Record<string, Map<string, LackingTrajectory>> = {};
    for (const label of store.listLabels()) {
      const key = `${label.environment}\u0000${label.taskId}\u0000${label.trial}`;
      const episode = failed.get(key);
      if (episode === undefined) continue;
      const rows = (byCapability[label.capability] ??= new Map());
      const row = rows.get(key) ?? { environment: label.environment, taskId: label.taskId, trial: label.trial, reward: episode.reward, lackingRuns: 0, labeledRuns: 0 };
      row.labeledRuns += 1;
      if (label.label === "LACKING") row.lackingRuns += 1;
      rows.set(key, row);
    }
    return Object.fromEntries(Object.entries(byCapability).map(([capability, rows]) => [capability, [...rows.values()].filter((row) => row.lackingRuns > 0)]));
  });
  const marginal = marginalCapabilities(scores).map((entry) => entry.skill);
  return { directory: run.relative(directory), scores, lacking, marginal, notices: [] };
}
