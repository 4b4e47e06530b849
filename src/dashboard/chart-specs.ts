/**
 * The dashboard's charts as Vega-Lite specifications (rendered in the page by vega-embed; no chart is drawn by hand):
 * training curves, the calibration reward histogram, the route distribution, base vs TRACE per task. The comparison's
 * budget-vs-score curves reuse `trace compare`'s own specification (`curvesChartSpec`).
 */
import type { TopLevelSpec } from "vega-lite";

const SCHEMA = "https://vega.github.io/schema/vega-lite/v6.json";

/** One training metric over iterations: a line with a dot per measured iteration (null values left out). */
export function trainingCurveSpec(title: string, points: readonly { iteration: number; value: number }[]): TopLevelSpec {
  return {
    $schema: SCHEMA,
    title,
    width: 240,
    height: 120,
    data: { values: [...points] },
    mark: { type: "line", point: { filled: true, size: 40 } },
    encoding: {
      x: { field: "iteration", type: "quantitative", title: "iteration", axis: { tickMinStep: 1, format: "d" } },
      y: { field: "value", type: "quantitative", title: null, scale: { zero: false }, axis: { format: ".3~g" } },
      tooltip: [{ field: "iteration" }, { field: "value", format: ".4f" }],
    },
  };
}

/** Reward histogram of calibration episodes (20 bins over [0, 1]). */
export function rewardHistogramSpec(rewards: readonly number[]): TopLevelSpec {
  return {
    $schema: SCHEMA,
    title: `calibration rewards (${rewards.length} episodes)`,
    width: 260,
    height: 120,
    data: { values: rewards.map((reward) => ({ reward })) },
    mark: "bar",
    encoding: {
      x: { field: "reward", type: "quantitative", bin: { extent: [0, 1], step: 0.05 }, title: "reward" },
      y: { aggregate: "count", type: "quantitative", title: "episodes" },
    },
  };
}

/** How many tasks went to each routing option. */
export function routeDistributionSpec(routes: readonly { option: string; tasks: number }[]): TopLevelSpec {
  return {
    $schema: SCHEMA,
    title: "route distribution",
    width: 320,
    height: { step: 22 },
    data: { values: [...routes] },
    mark: "bar",
    encoding: {
      y: { field: "option", type: "nominal", title: null, sort: null },
      x: { field: "tasks", type: "quantitative", title: "tasks" },
      tooltip: [{ field: "option" }, { field: "tasks" }],
    },
  };
}

/** Reward per evaluation task of the base model and the routed (TRACE) agent, side by side. */
export function baseVersusTraceSpec(rows: readonly { task: string; policy: string; reward: number }[]): TopLevelSpec {
  return {
    $schema: SCHEMA,
    title: "evaluation reward per task: base vs TRACE",
    width: { step: 14 },
    height: 140,
    data: { values: [...rows] },
    mark: "bar",
    encoding: {
      x: { field: "task", type: "nominal", title: "task", sort: null },
      xOffset: { field: "policy", type: "nominal" },
      y: { field: "reward", type: "quantitative", aggregate: "mean", title: "mean reward", scale: { domain: [0, 1] } },
      color: { field: "policy", type: "nominal", scale: { domain: ["base", "trace"] } },
      tooltip: [{ field: "task" }, { field: "policy" }, { field: "reward", aggregate: "mean", format: ".3f" }],
    },
  };
}
