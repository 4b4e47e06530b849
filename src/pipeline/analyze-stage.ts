/**
 * The analyze stage: the capability analysis of the base rollouts. `llm` (the paper's method): the `analyst` role's
 * endpoint discovers a capability dictionary and labels every trajectory in N runs (resumable: labels are stored per
 * batch) into `analysis/`. `reference` (offline): the reference-guided labeler into `analysis/reference/` — against τ²'s
 * gold for a τ² target, against each instance's gold solution for a module (TRACE-mini) target, from ToolSandbox's
 * milestone evaluation for a ToolSandbox target.
 */
import type { AggregationThresholds } from "../analysis/aggregate-capabilities.js";
import { analyzeWithAnalyst } from "../analysis/analyze-with-analyst.js";
import { runModuleReferenceAnalysis } from "../analysis/module-reference-analysis.js";
import { runReferenceAnalysis } from "../analysis/reference-analysis.js";
import { runToolSandboxReferenceAnalysis } from "../analysis/toolsandbox-reference-analysis.js";
import { writeAnalysisReport } from "../analysis/write-analysis-report.js";
import { marginalCapabilities } from "../analysis/analysis-report.js";
import type { ScoresFile } from "../analysis/analysis-directory.js";
import { roleClient, roleEndpoint } from "./endpoints.js";
import type { PipelineContext } from "./pipeline-context.js";
import { loadTargetDomains } from "./target-tasks.js";
import { TraceError } from "../spec/trace-error.js";

/** Some (trajectory, run) pairs never got valid labels from the analyst; what was labeled is kept for the rerun. */
export class AnalysisIncompleteError extends TraceError {
  override readonly name = "AnalysisIncompleteError";
  constructor(
    readonly unlabeled: number,
    readonly example: string,
  ) {
    super(`analysis: ${unlabeled} trajectory-runs got no valid labels from the analyst (e.g. ${example}); the labels obtained are kept — rerun the same command to retry the rest`, { category: "endpoint" });
  }
}

/** Labels, aggregates, writes the report; returns a one-line summary. */
export async function runAnalyzeStage(context: PipelineContext): Promise<string> {
  const { config } = context;
  const directory = context.run.analysisDirectory(config.analysis.labeler);
  const store = context.openStore(context.run.storeFile);
  try {
    let scores: ScoresFile;
    let labeled: string;
    if (config.analysis.labeler === "llm") {
      const { analysis } = config;
      const thresholds: AggregationThresholds = { coverage: analysis.coverage, gap: analysis.gap, minRuns: analysis.minRuns };
      const instructions = new Map<string, string>();
      for (const domain of await loadTargetDomains(config)) for (const task of domain.tasks) instructions.set(`${domain.environment.name}\u0000${task.id}`, task.userInstructions);
      const client = roleClient(config, "analyst");
      const result = await analyzeWithAnalyst({
        store,
        client,
        model: roleEndpoint(config, "analyst")!.model,
        outDirectory: directory,
        runs: analysis.runs,
        thresholds,
        contextTokens: analysis.contextTokens,
        maxOutputTokens: analysis.maxOutputTokens,
        batchSize: analysis.batchSize,
        maxAttempts: analysis.maxAttempts,
        temperature: analysis.temperature,
        instructions: (episode) => instructions.get(`${episode.environment}\u0000${episode.taskId}`),
        onProgress: (line) => context.log(`  ${line}`),
      });
      const failures = [...result.failures.values()].flat();
      writeAnalysisReport({ directory, title: `${config.name}: LLM analyst` });
      if (failures.length > 0) throw new AnalysisIncompleteError(failures.reduce((sum, failure) => sum + failure.keys.length, 0), `${failures[0]!.keys[0]}: ${failures[0]!.error}`);
      scores = result.scores;
      labeled = `${result.candidates.candidates.length} candidate capabilities, ${analysis.runs} labeling runs`;
    } else {
      const thresholds = { coverage: config.analysis.coverage, gap: config.analysis.gap };
      let result;
      if (config.target.kind === "mini") {
        const environments = new Map((await loadTargetDomains(config)).flatMap((domain) => (domain.moduleEnvironment === undefined ? [] : [[domain.environment.name, domain.moduleEnvironment] as const])));
        result = await runModuleReferenceAnalysis({ store, environments: (name) => environments.get(name), outDirectory: directory, thresholds });
      } else if (config.target.kind === "toolsandbox") {
        result = runToolSandboxReferenceAnalysis({ store, dataDirectory: config.target.dataDirectory!, outDirectory: directory, thresholds });
      } else {
        result = runReferenceAnalysis({ store, outDirectory: directory, ...(config.target.dataDirectory === undefined ? {} : { dataDirectory: config.target.dataDirectory }), thresholds });
      }
      writeAnalysisReport({ directory, title: `${config.name}: reference labeler` });
      scores = result.scores;
      labeled = `${result.run.totals.total_failed + result.run.totals.total_passed} trajectories labeled`;
    }
    const kept = scores.capabilities.filter((capability) => capability.status === "kept").map((capability) => capability.skill);
    const marginal = marginalCapabilities(scores);
    for (const entry of marginal) {
      context.log(`  marginal: ${entry.skill} is ${entry.status} but would be kept in ${(100 * entry.share).toFixed(0)}% of resamples of the analysed tasks; more tasks or trials would settle it (analysis report)`);
    }
    return `${labeled}; kept: ${kept.join(", ") || "none"}${marginal.length === 0 ? "" : ` (marginal: ${marginal.map((entry) => entry.skill).join(", ")})`}`;
  } finally {
    store.close();
  }
}
