/**
 * Stage 2, analyze: the reference-guided labeler on the base rollouts into `analysis/reference/` — against τ²'s gold
 * for a τ² target, against each instance's gold solution for a module (TRACE-mini) target.
 */
import path from "node:path";
import { runModuleReferenceAnalysis } from "../analysis/module-reference-analysis.js";
import { REFERENCE_DIRECTORY, runReferenceAnalysis } from "../analysis/reference-analysis.js";
import { writeAnalysisReport } from "../analysis/write-analysis-report.js";
import type { PipelineContext } from "./pipeline-context.js";
import { loadTargetDomains } from "./target-tasks.js";

/** The analysis directory of a run. */
export function referenceAnalysisDirectory(runDirectory: string): string {
  return path.join(runDirectory, "analysis", REFERENCE_DIRECTORY);
}

/** Labels, aggregates, writes the report; returns a one-line summary. */
export async function runAnalyzeStage(context: PipelineContext): Promise<string> {
  const { config } = context;
  const directory = referenceAnalysisDirectory(config.runDirectory);
  const thresholds = { coverage: config.analysis.coverage, gap: config.analysis.gap };
  const store = context.openStore("store.sqlite");
  try {
    let result;
    if (config.target.kind === "mini") {
      const environments = new Map((await loadTargetDomains(config)).flatMap((domain) => (domain.moduleEnvironment === undefined ? [] : [[domain.environment.name, domain.moduleEnvironment] as const])));
      result = await runModuleReferenceAnalysis({ store, environments: (name) => environments.get(name), outDirectory: directory, thresholds });
    } else {
      result = runReferenceAnalysis({ store, outDirectory: directory, ...(config.target.dataDirectory === undefined ? {} : { dataDirectory: config.target.dataDirectory }), thresholds });
    }
    writeAnalysisReport({ directory, title: `${config.name}: reference labeler` });
    const { run, scores } = result;
    const kept = scores.capabilities.filter((capability) => capability.status === "kept").map((capability) => capability.skill);
    return `${run.totals.total_failed + run.totals.total_passed} trajectories labeled; kept: ${kept.join(", ") || "none"}`;
  } finally {
    store.close();
  }
}
