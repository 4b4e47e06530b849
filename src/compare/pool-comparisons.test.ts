import assert from "node:assert/strict";
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, test } from "node:test";
import { runPoolCommand } from "../cli/compare-command.js";
import { poolComparisons, PoolComparisonsError } from "./pool-comparisons.js";
import { DomainMismatchError } from "./report/domain-mismatch-error.js";
import { result } from "./report/comparison-test-support.js";

const BASE = { method: "base", label: "Base agent", group: "baseline" } as const;
const TRACE = { method: "trace", label: "TRACE", group: "trace" } as const;
const GRPO = { method: "grpo-target", label: "GRPO on the target", group: "baseline" } as const;

/** A run directory whose compare/ holds the given results, as `trace compare` writes them. */
function runWith(results: ReturnType<typeof result>[]): string {
  const directory = mkdtempSync(path.join(tmpdir(), "trace-pool-"));
  for (const entry of results) {
    const file = path.join(directory, "compare", `seed-${entry.seed}`, entry.method, "result.json");
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify({ ...entry, snapshots: [], notes: [] }));
  }
  return directory;
}

/** Rows of comparison.csv as objects. */
function csvRows(directory: string): Record<string, string>[] {
  const [header, ...lines] = readFileSync(path.join(directory, "comparison.csv"), "utf8").trim().split("\n");
  const keys = header!.split(",");
  return lines.map((line) => Object.fromEntries(line.split(",").map((cell, index) => [keys[index]!, cell])));
}

describe("poolComparisons", () => {
  // Run A: seed 0 base 0.5 / TRACE 0.7 (+0.2); seed 1 base 0.4 / TRACE 0.5 (+0.1). Run B: seed 0 base 0.6 / TRACE 0.6 (0),
  // GRPO on the target 0.8 on B only. Pooled TRACE − base: +0.2, +0.1, 0 → +10.0 ± 10.0, ahead 2, tied 1.
  const runA = runWith([result({ ...BASE, seed: 0 }, 5, 5, 0), result({ ...TRACE, seed: 0 }, 7, 7, 100), result({ ...BASE, seed: 1 }, 4, 4, 0), result({ ...TRACE, seed: 1 }, 5, 5, 100)]);
  const runB = runWith([result({ ...BASE, seed: 0 }, 6, 6, 0), result({ ...TRACE, seed: 0 }, 6, 6, 100), result({ ...GRPO, seed: 0 }, 8, 8, 100)]);

  test("every (run, seed) becomes one replicate, in the order the runs are given, and TRACE is paired within it", async () => {
    const out = mkdtempSync(path.join(tmpdir(), "trace-pooled-"));
    const { replicates } = await poolComparisons([runA, runB], out);
    assert.deepEqual(
      replicates.map((replicate) => [replicate.replicate, replicate.runDirectory, replicate.seed]),
      [
        [0, runA, 0],
        [1, runA, 1],
        [2, runB, 0],
      ],
    );
    const rows = csvRows(out);
    assert.deepEqual(
      rows.filter((row) => row.method === "trace" && row.domain === "airline").map((row) => [row.seed, row.passed]),
      [
        ["0", "7"],
        ["1", "5"],
        ["2", "6"],
      ],
    );
    const markdown = readFileSync(path.join(out, "comparison.md"), "utf8");
    assert.match(markdown, new RegExp(`0 = ${runA} seed 0; 1 = ${runA} seed 1; 2 = ${runB} seed 0`));
    const pairedBase = markdown.split("\n").find((line) => line.startsWith("| Base agent") && line.includes("0: +20.0"));
    assert.ok(pairedBase, "the paired table's base row");
    assert.match(pairedBase, /\+10\.0 ± 10\.0/);
    assert.match(pairedBase, /0: \+20\.0, 1: \+10\.0, 2: \+0\.0/);
    assert.match(pairedBase, /2 \/ 0 \/ 1 of 3/);
    // GRPO on the target ran in one replicate only: paired there alone (0.6 − 0.8).
    const pairedGrpo = markdown.split("\n").find((line) => line.startsWith("| GRPO on the target") && line.includes("2: -20.0"));
    assert.ok(pairedGrpo, "the paired table's GRPO row");
  });

  test("the CLI's pool command writes the report and says what each replicate is", async () => {
    const out = mkdtempSync(path.join(tmpdir(), "trace-pooled-"));
    const lines: string[] = [];
    const files = await runPoolCommand([runA, runB], { out }, (line) => lines.push(line));
    assert.ok(files.includes(path.join(out, "comparison.md")));
    assert.match(lines[0]!, /2 runs, 3 replicates/);
  });

  test("a run without comparison results, or one given twice, is refused naming it", async () => {
    const out = mkdtempSync(path.join(tmpdir(), "trace-pooled-"));
    const empty = mkdtempSync(path.join(tmpdir(), "trace-pool-empty-"));
    await assert.rejects(poolComparisons([runA, empty], out), (error: unknown) => error instanceof PoolComparisonsError && error.runDirectory === empty && /no comparison results/.test(error.message));
    await assert.rejects(poolComparisons([runA, runA], out), (error: unknown) => error instanceof PoolComparisonsError && /more than once/.test(error.message));
  });

  test("runs evaluated on different domains cannot be pooled", async () => {
    const out = mkdtempSync(path.join(tmpdir(), "trace-pooled-"));
    const other = result({ ...BASE, seed: 0 }, 5, 5, 0);
    const oneDomain = runWith([{ ...other, domains: [other.domains[0]!] }]);
    await assert.rejects(poolComparisons([runA, oneDomain], out), DomainMismatchError);
  });
});
