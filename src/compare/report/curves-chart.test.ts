import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { alignCurves } from "./align-curves.js";
import { HAND_MADE, OPTIONS } from "./comparison-test-support.js";
import { curvesChartSpec, renderCurvesSvg, seriesNames } from "./curves-chart.js";
import { EmptyResultsError } from "./empty-results-error.js";

describe("renderCurvesSvg", () => {
  test("draws an SVG naming each method and the budget axis", async () => {
    const svg = await renderCurvesSvg(HAND_MADE, OPTIONS);
    assert.match(svg, /^<svg /);
    for (const label of ["Base agent", "TRACE, routed adapters", "budgeted rollouts", OPTIONS.title]) assert.ok(svg.includes(label), label);
  });

  test("refuses empty results with a typed error", async () => {
    await assert.rejects(renderCurvesSvg([], OPTIONS), EmptyResultsError);
  });
});

describe("curvesChartSpec", () => {
  test("orders the legend by first appearance and draws the budget rule", () => {
    const spec = JSON.stringify(curvesChartSpec(alignCurves(HAND_MADE), OPTIONS));
    assert.ok(spec.includes('"domain":["Base agent","TRACE, routed adapters"]'));
    assert.ok(spec.includes('{"budget":1000}'));
  });

  test("holds each method's last score to the budget without a dot there", () => {
    const spec = curvesChartSpec(alignCurves(HAND_MADE), OPTIONS) as { data: { values: { series: string; episodes: number; mean: number; measured: boolean }[] } };
    const base = spec.data.values.filter((value) => value.series === "Base agent");
    assert.deepEqual(
      base.map((value) => [value.episodes, Number(value.mean.toFixed(4)), value.measured]),
      [
        [0, 0.5, true],
        [1000, 0.5, false],
      ],
    );
  });

  test("adds the method id where labels repeat", () => {
    const curves = alignCurves([HAND_MADE[0]!, { ...HAND_MADE[1]!, label: "Base agent" }]);
    assert.deepEqual(seriesNames(curves), ["Base agent (base)", "Base agent (trace)"]);
  });
});
