/** Stage 2, analyze: the reference-guided labeler on the base rollouts into `analysis/reference/`. */
import path from "node:path";
import { REFERENCE_DIRECTORY, runReferenceAnalysis } from "../analysis/reference-analysis.js";
import { writeAnalysisReport } from "../analysis/write-analysis-report.js";
import type { PipelineContext } from "./pipeline-context.js";

/** The analysis directory of a run. */
export function referenceAnalysisDirectory(runDirectory: string): string {
  return path.join(runDirectory, "analysis", REFERENCE_DIRECTORY);
}

/** Labels, aggregates, writes the report; returns a one-line summary. */
export function runAnalyzeStage(context: PipelineContext): Promise<string> {
  const { config } = context;
  const directory = referenceAnalysisDirectory(config.runDirectory);
  const store = context.openStore("store.sqlite");
  try {
    const { run, scores } = runReferenceAnalysis({
      store,
      outDirectory: directory,
      dataDirectory: config.target.dataDirectory,
      thresholds: { coverage: config.analysis.coverage, gap: config.analysis.gap },
    });
    writeAnalysisReport({ directory, title: `${config.name}: reference labeler` });
    const kept = scores.capabilities.filter((capability) => capability.status === "kept").map((capability) => capability.skill);
    return Promise.resolve(`${run.totals.total_failed + run.totals.total_passed} trajectories labeled; kept: ${kept.join(", ") || "none"}`);
  } finally {
    store.close();
  }
}
