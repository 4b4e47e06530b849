/** curves.csv: one row per method × seed × curve point, RFC 4180 quoted. */
import { stringify } from "csv-stringify/sync";
import type { MethodSeedResult } from "./comparison-types.js";
import { validateResults } from "./validate-results.js";

/** Columns of curves.csv, one row per method × seed × curve point. */
const CURVE_COLUMNS = ["method", "seed", "episodes", "score"] as const;

/** Renders curves.csv; each seed's points sorted by episodes. */
export function renderCurvesCsv(results: readonly MethodSeedResult[]): string {
  validateResults(results);
  const rows = results.flatMap((result) =>
    [...result.curve].sort((left, right) => left.episodes - right.episodes).map((point) => [result.method, result.seed, point.episodes, point.score]),
  );
  return stringify(rows, { header: true, columns: [...CURVE_COLUMNS] });
}
