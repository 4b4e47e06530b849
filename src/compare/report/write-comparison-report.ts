/** Writes the comparison report files of `trace compare` into one directory. */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { renderComparisonCsv, renderKindsCsv } from "./comparison-csv.js";
import { renderComparisonMarkdown } from "./comparison-markdown.js";
import type { ComparisonReportOptions, MethodSeedResult } from "./comparison-types.js";
import { renderCurvesSvg } from "./curves-chart.js";
import { renderCurvesCsv } from "./curves-csv.js";
import { renderPng } from "./render-png.js";

/**
 * Writes comparison.md, comparison.csv, curves.csv, curves.svg and curves.png into `directory` (created if missing),
 * and comparison-kinds.csv when the results carry pass counts per kind of task; returns their paths. Validates
 * everything before writing anything.
 */
export async function writeComparisonReport(directory: string, results: readonly MethodSeedResult[], options: ComparisonReportOptions): Promise<string[]> {
  const svg = await renderCurvesSvg(results, options);
  const files: [string, string | Buffer][] = [
    ["comparison.md", renderComparisonMarkdown(results, options)],
    ["comparison.csv", renderComparisonCsv(results)],
    ["curves.csv", renderCurvesCsv(results)],
    ["curves.svg", svg],
    ["curves.png", renderPng(svg)],
  ];
  const kinds = renderKindsCsv(results);
  if (kinds !== undefined) files.push(["comparison-kinds.csv", kinds]);
  await mkdir(directory, { recursive: true });
  const written: string[] = [];
  for (const [name, content] of files) {
    const file = path.join(directory, name);
    await writeFile(file, content);
    written.push(file);
  }
  return written;
}
