/** comparison.csv: one row per method × seed × domain, RFC 4180 quoted. */
import { stringify } from "csv-stringify/sync";
import type { MethodSeedResult } from "./comparison-types.js";
import { validateResults } from "./validate-results.js";

/** Columns of comparison.csv, one row per method × seed × domain. */
export const COMPARISON_COLUMNS = [
  "method",
  "label",
  "group",
  "seed",
  "domain",
  "passed",
  "total",
  "pass_rate",
  "mean_reward",
  "budget_limit",
  "budget_spent",
  "evaluation_episodes",
] as const;

/** Renders comparison.csv; domains in the first result's order. */
export function renderComparisonCsv(results: readonly MethodSeedResult[]): string {
  const domains = validateResults(results);
  const rows = results.flatMap((result) =>
    domains.map((name) => {
      const domain = result.domains.find((candidate) => candidate.domain === name)!;
      return [
        result.method,
        result.label,
        result.group,
        result.seed,
        domain.domain,
        domain.passed,
        domain.total,
        domain.passed / domain.total,
        domain.meanReward,
        result.budget.limit,
        result.budget.spent,
        result.budget.evaluation,
      ];
    }),
  );
  return stringify(rows, { header: true, columns: [...COMPARISON_COLUMNS] });
}

/** Columns of comparison-kinds.csv, one row per method × seed × domain × kind of task. */
export const KIND_COLUMNS = ["method", "label", "group", "seed", "domain", "kind", "passed", "total", "pass_rate"] as const;

/** Renders comparison-kinds.csv from the results' pass counts per kind of task; undefined when no result has any. */
export function renderKindsCsv(results: readonly MethodSeedResult[]): string | undefined {
  const rows = results.flatMap((result) =>
    result.domains.flatMap((domain) =>
      Object.entries(domain.groups ?? {}).map(([kind, count]) => [result.method, result.label, result.group, result.seed, domain.domain, kind, count.passed, count.total, count.total === 0 ? "" : count.passed / count.total]),
    ),
  );
  return rows.length === 0 ? undefined : stringify(rows, { header: true, columns: [...KIND_COLUMNS] });
}
