/** Report writer of `trace compare`: comparison tables, long-format CSVs and budget-vs-score curves. */
export { alignCurves, stepScore, type AlignedCurvePoint, type MethodCurve } from "./align-curves.js";
export { COMPARISON_COLUMNS, renderComparisonCsv } from "./comparison-csv.js";
export { BASE_METHOD, formatPercent, formatPoints, renderComparisonMarkdown } from "./comparison-markdown.js";
export type { BudgetUse, ComparisonReportOptions, CurvePoint, DomainResult, MethodGroup, MethodSeedResult } from "./comparison-types.js";
export { curvesChartSpec, renderCurvesSvg, seriesNames } from "./curves-chart.js";
export { CURVE_COLUMNS, renderCurvesCsv } from "./curves-csv.js";
export { DomainMismatchError } from "./domain-mismatch-error.js";
export { EmptyResultsError } from "./empty-results-error.js";
export { InvalidResultError } from "./invalid-result-error.js";
export { bundledFontFiles, CHART_FONT_FAMILY, renderPng } from "./render-png.js";
export { summarizeMethods, type ComparisonSummary, type MethodSummary } from "./summarize-methods.js";
export { summarize, type Summary } from "./summary-statistics.js";
export { validateResults } from "./validate-results.js";
export { writeComparisonReport } from "./write-comparison-report.js";
