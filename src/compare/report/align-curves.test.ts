import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { alignCurves, stepScore } from "./align-curves.js";
import { result } from "./comparison-test-support.js";
import type { CurvePoint } from "./comparison-types.js";

const GRPO = { method: "grpo-target", label: "GRPO on target", group: "baseline" } as const;

function withCurve(seed: number, curve: CurvePoint[]) {
  return { ...result({ ...GRPO, seed }, 5, 5, 200), curve };
}

describe("alignCurves", () => {
  test("aligns seeds with different x points as step functions", () => {
    const [curve] = alignCurves([
      withCurve(1, [
        { episodes: 200, score: 0.5 },
        { episodes: 0, score: 0.1 },
        { episodes: 100, score: 0.3 },
      ]),
      withCurve(2, [
        { episodes: 0, score: 0.2 },
        { episodes: 150, score: 0.4 },
      ]),
      // Joins at its first point, x = 50.
      withCurve(3, [{ episodes: 50, score: 0.6 }]),
    ]);
    assert.equal(curve?.method, "grpo-target");
    const rounded = curve.points.map((point) => ({
      episodes: point.episodes,
      mean: Number(point.mean.toFixed(4)),
      minimum: point.minimum,
      maximum: point.maximum,
      seeds: point.seeds,
    }));
    assert.deepEqual(rounded, [
      { episodes: 0, mean: 0.15, minimum: 0.1, maximum: 0.2, seeds: 2 },
      { episodes: 50, mean: 0.3, minimum: 0.1, maximum: 0.6, seeds: 3 },
      { episodes: 100, mean: 0.3667, minimum: 0.2, maximum: 0.6, seeds: 3 },
      { episodes: 150, mean: 0.4333, minimum: 0.3, maximum: 0.6, seeds: 3 },
      { episodes: 200, mean: 0.5, minimum: 0.4, maximum: 0.6, seeds: 3 },
    ]);
    assert.ok(Math.abs(curve.points[4]!.standardDeviation - 0.1) < 1e-12);
  });

  test("keeps methods in first-seen order", () => {
    const other = { ...result({ method: "base", label: "Base", group: "baseline", seed: 1 }, 1, 1, 0) };
    assert.deepEqual(
      alignCurves([withCurve(1, [{ episodes: 10, score: 0.2 }]), other, withCurve(2, [{ episodes: 10, score: 0.4 }])]).map((curve) => curve.method),
      ["grpo-target", "base"],
    );
  });

  test("stepScore is undefined before the first point and holds the last one after", () => {
    const curve = [
      { episodes: 10, score: 0.2 },
      { episodes: 20, score: 0.4 },
    ];
    assert.deepEqual([stepScore(curve, 5), stepScore(curve, 10), stepScore(curve, 19), stepScore(curve, 99)], [undefined, 0.2, 0.2, 0.4]);
  });
});
