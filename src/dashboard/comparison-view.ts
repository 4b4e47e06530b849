/**
 * The comparison view: `trace compare`'s methods table (pass rate mean, sd, min and max over training seeds, per
 * domain and overall, and the budget spent), the mean reward of graded domains (ToolSandbox's similarity) and the budget-vs-score curves, from `compare/seed-<N>/<method>/result.json`
 * through compare's own summary and chart specification, so the page shows what `compare/comparison.md` reports.
 */
import { existsSync } from "node:fs";
import type { TopLevelSpec } from "vega-lite";
import { readMethodSeedRecords } from "../compare/method-seed-record.js";
import { alignCurves } from "../compare/report/align-curves.js";
import { curvesChartSpec } from "../compare/report/curves-chart.js";
import type { Summary } from "../compare/report/summary-statistics.js";
import { gradedDomains, pairedDifferences, summarizeKinds, summarizeMethods, type KindsSummary, type PairedDifference } from "../compare/report/summarize-methods.js";
import type { RunDirectory } from "../run/run-directory.js";
import { checkRunDirectory } from "./dashboard-run.js";

export interface ComparisonRow {
  method: string;
  label: string;
  group: string;
  seeds: number[];
  overall: Summary;
  domains: Record<string, Summary>;
  /** Mean reward per domain (ToolSandbox: the mean similarity). */
  meanRewards: Record<string, Summary>;
  spent: Summary;
  notes: string[];
}

export interface ComparisonView {
  domains: string[];
  /** The domains whose reward is graded (its mean differs from the pass rate), as comparison.md's "Mean reward" table. */
  graded: string[];
  methods: ComparisonRow[];
  /** Pass rates per kind of task, per domain whose results carry kinds (as comparison.md's table). */
  kinds: KindsSummary[];
  /** TRACE against each other method, paired by seed (as comparison.md's table); empty without TRACE results. */
  paired: PairedDifference[];
  budget: number | null;
  curves: TopLevelSpec | null;
  notices: string[];
}

/** Reads the comparison's results (those written so far while `compare` runs). */
export function readComparisonView(run: RunDirectory): ComparisonView {
  checkRunDirectory(run);
  const empty = (notice: string): ComparisonView => ({ domains: [], graded: [], methods: [], kinds: [], paired: [], budget: null, curves: null, notices: [notice] });
  if (!existsSync(run.compareDirectory)) return empty("no comparison yet (compare/ is written by `trace compare` or the compare stage)");
  const results = readMethodSeedRecords(run.compareDirectory);
  if (results.length === 0) return empty("no method has finished yet (compare/seed-<N>/<method>/result.json)");
  const summary = summarizeMethods(results);
  const budget = Math.max(...results.map((result) => result.budget.limit));
  const methods = summary.methods.map((method) => ({
    method: method.method,
    label: method.label,
    group: method.group,
    seeds: method.seeds,
    overall: method.overall,
    domains: Object.fromEntries(method.domains),
    meanRewards: Object.fromEntries(method.meanRewards),
    spent: method.spent,
    notes: results.filter((result) => result.method === method.method).flatMap((result) => result.notes.map((note) => `seed ${result.seed}: ${note}`)),
  }));
  const curves = curvesChartSpec(alignCurves(results), { title: "evaluation pass rate against budgeted rollouts", budget });
  return { domains: summary.domains, graded: gradedDomains(results), methods, kinds: summarizeKinds(results), paired: pairedDifferences(results, "trace"), budget, curves, notices: [] };
}
