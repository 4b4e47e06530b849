/**
 * ToolSandbox's result summary (its CLI's `get_category_summary`): mean similarity and turn count overall and per
 * scenario category, the three-distraction-tools category counted without the scrambled variants built on it, plus
 * the number of perfect (similarity 1.0) conversations; read from stored episodes (their rewards' details).
 */
import type { EpisodeRecord } from "../../store/trajectory-store.js";
import { TOOLSANDBOX_ENVIRONMENT_NAME } from "./environment.js";
import type { ToolSandboxEvaluation } from "./evaluate.js";

/** One scored conversation. */
export interface ScoredScenario {
  name: string;
  categories: readonly string[];
  similarity: number;
  turnCount: number;
}

export interface CategoryFigures {
  count: number;
  meanSimilarity: number;
  perfect: number;
  meanTurnCount: number;
}

const SCRAMBLES = new Set(["TOOL_NAME_SCRAMBLED", "TOOL_DESCRIPTION_SCRAMBLED", "ARG_DESCRIPTION_SCRAMBLED", "ARG_TYPE_SCRAMBLED", "ARG_NAME_SCRAMBLED"]);

/** Figures per category and `ALL_CATEGORIES`. */
export function categorySummary(results: readonly ScoredScenario[]): Record<string, CategoryFigures> {
  const groups = new Map<string, ScoredScenario[]>();
  const add = (category: string, result: ScoredScenario) => groups.set(category, [...(groups.get(category) ?? []), result]);
  for (const result of results) {
    for (const category of result.categories) {
      if (category === "THREE_DISTRACTION_TOOLS" && result.categories.some((other) => SCRAMBLES.has(other))) continue;
      add(category, result);
    }
    add("ALL_CATEGORIES", result);
  }
  const out: Record<string, CategoryFigures> = {};
  for (const [category, members] of [...groups.entries()].sort(([a], [b]) => a.localeCompare(b))) {
    out[category] = {
      count: members.length,
      meanSimilarity: members.reduce((sum, member) => sum + member.similarity, 0) / members.length,
      perfect: members.filter((member) => member.similarity === 1).length,
      meanTurnCount: members.reduce((sum, member) => sum + member.turnCount, 0) / members.length,
    };
  }
  return out;
}

/** A fixed-width table of the summary. */
export function formatCategorySummary(summary: Record<string, CategoryFigures>): string {
  const lines = [`${"category".padEnd(28)} ${"n".padStart(5)} ${"similarity".padStart(10)} ${"perfect".padStart(8)} ${"turns".padStart(6)}`];
  for (const [category, figures] of Object.entries(summary)) {
    lines.push(`${category.padEnd(28)} ${String(figures.count).padStart(5)} ${figures.meanSimilarity.toFixed(3).padStart(10)} ${String(figures.perfect).padStart(8)} ${figures.meanTurnCount.toFixed(1).padStart(6)}`);
  }
  return lines.join("\n");
}

/** Two summaries side by side (the base's and TRACE's on the same scenarios): per category, n, mean similarity of each and the gain, perfect counts. */
export function formatCategoryComparison(base: Record<string, CategoryFigures>, trace: Record<string, CategoryFigures>): string {
  const lines = [`${"category".padEnd(28)} ${"n".padStart(5)} ${"base sim".padStart(9)} ${"TRACE sim".padStart(9)} ${"gain".padStart(7)} ${"base perf".padStart(9)} ${"TRACE perf".padStart(10)}`];
  for (const category of [...new Set([...Object.keys(base), ...Object.keys(trace)])].sort()) {
    const before = base[category];
    const after = trace[category];
    const similarity = (figures: CategoryFigures | undefined) => (figures === undefined ? "-" : figures.meanSimilarity.toFixed(3));
    const gain = before === undefined || after === undefined ? "-" : `${after.meanSimilarity >= before.meanSimilarity ? "+" : ""}${(after.meanSimilarity - before.meanSimilarity).toFixed(3)}`;
    lines.push(
      `${category.padEnd(28)} ${String(after?.count ?? before?.count ?? 0).padStart(5)} ${similarity(before).padStart(9)} ${similarity(after).padStart(9)} ${gain.padStart(7)} ${String(before?.perfect ?? "-").padStart(9)} ${String(after?.perfect ?? "-").padStart(10)}`,
    );
  }
  return lines.join("\n");
}

/** A finished ToolSandbox episode's scenario, categories and evaluation (its reward's details). */
export interface ToolSandboxResult {
  name: string;
  categories: string[];
  evaluation: ToolSandboxEvaluation;
}

/** The graded ToolSandbox episodes among `episodes` (those of `environment` whose reward carries ToolSandbox's evaluation). */
export function toolSandboxResults(episodes: readonly EpisodeRecord[], environment = TOOLSANDBOX_ENVIRONMENT_NAME): ToolSandboxResult[] {
  return episodes.flatMap((record) => {
    if (record.environment !== environment || record.status !== "finished") return [];
    const details = record.rewardInfo?.details as (ToolSandboxEvaluation & { categories?: string[] }) | undefined;
    if (details === undefined || typeof details.similarity !== "number") return [];
    return [{ name: record.taskId, categories: details.categories ?? [], evaluation: details }];
  });
}

/** ToolSandbox's figures per category of such results. */
export function toolSandboxCategorySummary(results: readonly ToolSandboxResult[]): Record<string, CategoryFigures> {
  return categorySummary(results.map((result) => ({ name: result.name, categories: result.categories, similarity: result.evaluation.similarity, turnCount: result.evaluation.turn_count })));
}
