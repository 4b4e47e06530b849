import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { describe, test } from "node:test";
import { HAND_MADE, OPTIONS } from "./comparison-test-support.js";
import { renderCurvesSvg } from "./curves-chart.js";
import { bundledFontFiles, renderPng } from "./render-png.js";

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

describe("renderPng", () => {
  test("ships TrueType fonts for text", () => {
    for (const file of bundledFontFiles()) assert.ok(existsSync(file) && file.endsWith(".ttf"), file);
  });

  test("renders the curves as a PNG of plausible size", async () => {
    const svg = await renderCurvesSvg(HAND_MADE, OPTIONS);
    const png = renderPng(svg);
    assert.deepEqual(png.subarray(0, 8), PNG_SIGNATURE);
    const width = png.readUInt32BE(16);
    const height = png.readUInt32BE(20);
    const svgWidth = Number(/width="(\d+)"/.exec(svg)?.[1]);
    assert.equal(width, svgWidth * 2);
    assert.ok(width > 1000 && width < 3000 && height > 400 && height < 2000, `${width}×${height}`);
    assert.ok(png.length > 20_000 && png.length < 2_000_000, `${png.length} bytes`);
  });

  test("text changes the pixels: the legend is rendered with a font", () => {
    const box = (text: string) => `<svg xmlns="http://www.w3.org/2000/svg" width="120" height="30"><text x="4" y="20" font-family="sans-serif" font-size="14">${text}</text></svg>`;
    assert.notDeepEqual(renderPng(box("TRACE")), renderPng(box("")));
  });
});
