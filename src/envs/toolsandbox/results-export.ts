/**
 * ToolSandbox's results format: its CLI writes `result_summary.json` with `per_scenario_results` (name, categories,
 * traceback, exception_type, milestone and minefield similarity, similarity, turn count, mappings) and
 * `category_aggregated_results` (mean similarity and turn count per category), which its analysis notebooks read.
 */
import { categorySummary, type ScoredScenario } from "./category-report.js";
import type { ToolSandboxEvaluation } from "./evaluate.js";

/** One scenario's evaluation, named. */
export interface ScenarioResult {
  name: string;
  categories: readonly string[];
  evaluation: ToolSandboxEvaluation;
}

/** The `result_summary.json` object. */
export function resultSummary(results: readonly ScenarioResult[]): Record<string, unknown> {
  const scored: ScoredScenario[] = results.map((result) => ({ name: result.name, categories: result.categories, similarity: result.evaluation.similarity, turnCount: result.evaluation.turn_count }));
  const aggregated: Record<string, { similarity: number; turn_count: number }> = {};
  for (const [category, figures] of Object.entries(categorySummary(scored))) aggregated[category] = { similarity: figures.meanSimilarity, turn_count: figures.meanTurnCount };
  return {
    per_scenario_results: results.map((result) => ({
      name: result.name,
      categories: result.categories,
      traceback: result.evaluation.exception_type === null ? null : `${result.evaluation.exception_type} (raised in trace's port of ToolSandbox)`,
      exception_type: result.evaluation.exception_type,
      milestone_similarity: result.evaluation.milestone_similarity,
      minefield_similarity: result.evaluation.minefield_similarity,
      similarity: result.evaluation.similarity,
      turn_count: result.evaluation.turn_count,
      milestone_mapping: result.evaluation.milestone_mapping,
      minefield_mapping: result.evaluation.minefield_mapping,
    })),
    category_aggregated_results: aggregated,
    git_sha: null,
  };
}
