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
