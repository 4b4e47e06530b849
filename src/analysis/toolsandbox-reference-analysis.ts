/**
 * Offline analysis of a run on ToolSandbox with the reference labeler, as `runReferenceAnalysis` does for τ²: every
 * finished `toolsandbox` episode is labeled from ToolSandbox's evaluation of it (its reward's details) against its
 * scenario (`toolsandbox-reference-labeler.ts`), stored as run `reference`, written as one run file with the
 * ToolSandbox dictionary, and aggregated with min-runs 1 (the labeler is deterministic).
 */
import { TOOLSANDBOX_ENVIRONMENT_NAME } from "../envs/toolsandbox/environment.js";
import type { ToolSandboxEvaluation } from "../envs/toolsandbox/evaluate.js";
import { loadToolSandboxExport } from "../envs/toolsandbox/load-export.js";
import { TraceError } from "../spec/trace-error.js";
import type { EpisodeRecord, TrajectoryStore } from "../store/trajectory-store.js";
import type { AggregationThresholds } from "./aggregate-capabilities.js";
import type { ScoresFile } from "./analysis-directory.js";
import type { LabeledTrajectory } from "./build-run-file.js";
import { writeReferenceAnalysis } from "./reference-analysis.js";
import type { RunFile } from "./run-file.js";
import { TOOLSANDBOX_REFERENCE_CAPABILITIES, toolSandboxReferenceLabels } from "./toolsandbox-reference-labeler.js";
import { trajectoryKey } from "./trajectory-key.js";

/** A ToolSandbox episode the labeler cannot read: its scenario is not in the export, or its reward carries no evaluation. */
export class UnlabelableToolSandboxEpisodeError extends TraceError {
  override readonly name = "UnlabelableToolSandboxEpisodeError";
  constructor(
    readonly episode: string,
    readonly reason: string,
  ) {
    super(`ToolSandbox reference labeler: episode ${episode} ${reason}`, { category: "data" });
  }
}

function evaluationOf(episode: EpisodeRecord): ToolSandboxEvaluation | undefined {
  const details = episode.rewardInfo?.details as Partial<ToolSandboxEvaluation> | undefined;
  if (details === undefined || typeof details.minefield_similarity !== "number" || details.milestone_mapping === null || typeof details.milestone_mapping !== "object") return undefined;
  return details as ToolSandboxEvaluation;
}

export interface ToolSandboxReferenceAnalysisOptions {
  store: TrajectoryStore;
  /** The ToolSandbox export (`scenarios.json.gz`) the run's scenarios come from. */
  dataDirectory: string;
  /** Where the analysis goes (run file, candidates, selection, scores). */
  outDirectory: string;
  thresholds: Omit<AggregationThresholds, "minRuns">;
}

/** Labels every finished ToolSandbox episode, writes the run file and the aggregation; returns both. */
export function runToolSandboxReferenceAnalysis(options: ToolSandboxReferenceAnalysisOptions): { run: RunFile; scores: ScoresFile } {
  const scenarios = new Map(loadToolSandboxExport(options.dataDirectory).scenarios.map((scenario) => [scenario.name, scenario]));
  const labeled = options.store.listEpisodes({ environment: TOOLSANDBOX_ENVIRONMENT_NAME, status: "finished" }).map((episode) => {
    const name = `${episode.taskId}#${episode.trial}`;
    const scenario = scenarios.get(episode.taskId);
    if (scenario === undefined) throw new UnlabelableToolSandboxEpisodeError(name, `names a scenario that ${options.dataDirectory} does not hold`);
    const evaluation = evaluationOf(episode);
    if (evaluation === undefined) throw new UnlabelableToolSandboxEpisodeError(name, "has no ToolSandbox evaluation in its reward (milestone mapping, minefield similarity)");
    const trajectory: LabeledTrajectory = { key: trajectoryKey(episode), failed: episode.success !== true, labels: toolSandboxReferenceLabels(scenario, evaluation) };
    return { episode, trajectory };
  });
  return writeReferenceAnalysis({
    ...options,
    labeled,
    capabilities: TOOLSANDBOX_REFERENCE_CAPABILITIES,
    labeler: "reference (ToolSandbox milestones; deterministic; one run, min-runs 1)",
  });
}
