/** curves.svg: per method, mean evaluation pass rate over seeds against budgeted rollouts, with a min–max band. */
import type { TopLevelSpec } from "vega-lite";
import { alignCurves, type MethodCurve } from "./align-curves.js";
import type { ComparisonReportOptions, MethodSeedResult } from "./comparison-types.js";

/** Legend names of the curves: each method's label, with its id added where labels repeat. */
export function seriesNames(curves: readonly MethodCurve[]): string[] {
  const counts = new Map<string, number>();
  for (const curve of curves) counts.set(curve.label, (counts.get(curve.label) ?? 0) + 1);
  return curves.map((curve) => ((counts.get(curve.label) ?? 0) > 1 ? `${curve.label} (${curve.method})` : curve.label));
}

/**
 * Vega-Lite specification of the curves chart: step lines of the mean over seeds with dots at evaluated points,
 * min–max bands, and the budget as a dashed rule. A method's last score holds to the right edge, so a method that
 * stops early (or never trains, like the base agent) stays visible across the whole budget.
 */
export function curvesChartSpec(curves: readonly MethodCurve[], options: ComparisonReportOptions): TopLevelSpec {
  const names = seriesNames(curves);
  const rightEdge = Math.max(options.budget, ...curves.flatMap((curve) => curve.points.map((point) => point.episodes)));
  const values = curves.flatMap((curve, index) => {
    const measured = curve.points.map((point) => ({ series: names[index], measured: true, ...point }));
    const last = measured.at(-1);
    return last && last.episodes < rightEdge ? [...measured, { ...last, episodes: rightEdge, measured: false }] : measured;
  });
  const color = {
    field: "series",
    type: "nominal",
    title: "method",
    scale: { domain: names },
    legend: { symbolType: "stroke", symbolOpacity: 1, symbolStrokeWidth: 2, labelLimit: 320 },
  } as const;
  const x = { field: "episodes", type: "quantitative", title: "budgeted rollouts" } as const;
  const y = { field: "mean", type: "quantitative", title: "evaluation pass rate", axis: { format: ".0%" } } as const;
  return {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    title: { text: options.title, subtitle: "mean over seeds; band: min–max over seeds; dashed: budget" },
    width: 560,
    height: 320,
    background: "white",
    data: { values },
    layer: [
      {
        mark: { type: "area", interpolate: "step-after", opacity: 0.18 },
        encoding: { x, y: { field: "minimum", type: "quantitative" }, y2: { field: "maximum" }, color },
      },
      { mark: { type: "line", interpolate: "step-after", strokeWidth: 2 }, encoding: { x, y, color } },
      { transform: [{ filter: "datum.measured" }], mark: { type: "point", filled: true, size: 30, opacity: 1 }, encoding: { x, y, color } },
      {
        data: { values: [{ budget: options.budget }] },
        mark: { type: "rule", strokeDash: [4, 4], color: "gray" },
        encoding: { x: { field: "budget", type: "quantitative" } },
      },
    ],
  };
}

/** Renders curves.svg from all methods' results with Vega-Lite, headless. */
export async function renderCurvesSvg(results: readonly MethodSeedResult[], options: ComparisonReportOptions): Promise<string> {
  // Loaded on first use: vega and vega-lite cost about 0.3 s at every `trace` start otherwise.
  const [{ parse, View }, { compile }] = await Promise.all([import("vega"), import("vega-lite")]);
  const compiled = compile(curvesChartSpec(alignCurves(results), options));
  const view = new View(parse(compiled.spec), { renderer: "none" });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}
