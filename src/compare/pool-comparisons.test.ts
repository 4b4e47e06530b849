import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { runPoolCommand } from "../cli/compare-command.js";
import { evaluationSplitOf, poolComparisons, PoolComparisonsError } from "./pool-comparisons.js";
import { DomainMismatchError } from "./report/domain-mismatch-error.js";
import { result, runOnSplit, runWith } from "./report/comparison-test-support.js";
import { scratchDirectory } from "../testing/scratch-directory.js";

const BASE = { method: "base", label: "Base agent", group: "baseline" } as const;
const TRACE = { method: "trace", label: "TRACE", group: "trace" } as const;
const GRPO = { method: "grpo-target", label: "GRPO on the target", group: "baseline" } as const;

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
    const out = scratchDirectory("trace-pooled-");
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

  test("runs on the same evaluation split form one split, and the report gives TRACE's lead over split means", async () => {
    // Split 1000: two runs, TRACE − base +20, +10 (run a) and +30 (run b): mean +20. Split 2000: +0 and +10: mean +5.
    // Over runs: +20, +10, +30, +0, +10 → +14.0 ± 11.4; over splits: +20, +5 → +12.5 ± 10.6, t(0.975, 1) = 12.706.
    const a = runOnSplit(1000, [result({ ...BASE, seed: 0 }, 5, 5, 0), result({ ...TRACE, seed: 0 }, 7, 7, 100), result({ ...BASE, seed: 1 }, 4, 4, 0), result({ ...TRACE, seed: 1 }, 5, 5, 100)]);
    const b = runOnSplit(1000, [result({ ...BASE, seed: 2 }, 4, 4, 0), result({ ...TRACE, seed: 2 }, 7, 7, 100)]);
    const c = runOnSplit(2000, [result({ ...BASE, seed: 3 }, 6, 6, 0), result({ ...TRACE, seed: 3 }, 6, 6, 100), result({ ...BASE, seed: 4 }, 5, 5, 0), result({ ...TRACE, seed: 4 }, 6, 6, 100)]);
    const out = scratchDirectory("trace-pooled-");
    const { splits } = await poolComparisons([a, c, b], out);
    assert.deepEqual(splits, [
      { name: "mini 1000–1099", replicates: [0, 1, 4] },
      { name: "mini 2000–2099", replicates: [2, 3] },
    ]);
    const markdown = readFileSync(path.join(out, "comparison.md"), "utf8");
    assert.match(markdown, /## TRACE against each method, over evaluation splits/);
    const row = markdown.split("\n").find((line) => line.startsWith("| Base agent") && line.includes("mini 1000–1099: +20.0"));
    assert.ok(row, "the split table's base row");
    assert.match(row, /\+14\.0 ± 11\.4 \(-0\.2 to \+28\.2\)/);
    assert.match(row, /\+12\.5 ± 10\.6 \(-82\.8 to \+107\.8\)/);
    assert.match(row, /mini 2000–2099: \+5\.0/);
    assert.match(row, /2 \/ 0 of 2/);
  });

  test("a run without a config is a split of its own, and one split alone adds no split table", async () => {
    const out = scratchDirectory("trace-pooled-");
    const { splits } = await poolComparisons([runA, runB], out);
    assert.deepEqual(splits, [
      { name: runA, replicates: [0, 1] },
      { name: runB, replicates: [2] },
    ]);
    const same = runOnSplit(1000, [result({ ...BASE, seed: 0 }, 5, 5, 0), result({ ...TRACE, seed: 0 }, 7, 7, 100)]);
    const again = runOnSplit(1000, [result({ ...BASE, seed: 1 }, 5, 5, 0), result({ ...TRACE, seed: 1 }, 6, 6, 100)]);
    await poolComparisons([same, again], out);
    assert.doesNotMatch(readFileSync(path.join(out, "comparison.md"), "utf8"), /over evaluation splits/);
  });

  test("a target other than TRACE-mini's is its split as a whole; an unreadable config names none", () => {
    const directory = scratchDirectory("trace-pool-config-");
    writeFileSync(path.join(directory, "config.json"), JSON.stringify({ target: { kind: "tau2", domains: ["retail"] } }));
    assert.deepEqual(evaluationSplitOf(directory), { key: JSON.stringify({ kind: "tau2", domains: ["retail"] }), name: `the target of ${directory}` });
    writeFileSync(path.join(directory, "config.json"), "{ not json");
    assert.equal(evaluationSplitOf(directory), undefined);
  });

  test("the CLI's pool command writes the report and says what each replicate is", async () => {
    const out = scratchDirectory("trace-pooled-");
    const lines: string[] = [];
    const files = await runPoolCommand([runA, runB], { out }, (line) => lines.push(line));
    assert.ok(files.includes(path.join(out, "comparison.md")));
    assert.match(lines[0]!, /2 runs, 3 replicates .*, 2 evaluation splits$/);
  });

  test("a run without comparison results, or one given twice, is refused naming it", async () => {
    const out = scratchDirectory("trace-pooled-");
    const empty = scratchDirectory("trace-pool-empty-");
    await assert.rejects(poolComparisons([runA, empty], out), (error: unknown) => error instanceof PoolComparisonsError && error.runDirectory === empty && /no comparison results/.test(error.message));
    await assert.rejects(poolComparisons([runA, runA], out), (error: unknown) => error instanceof PoolComparisonsError && /more than once/.test(error.message));
  });

  test("runs evaluated on different domains cannot be pooled", async () => {
    const out = scratchDirectory("trace-pooled-");
    const other = result({ ...BASE, seed: 0 }, 5, 5, 0);
    const oneDomain = runWith([{ ...other, domains: [other.domains[0]!] }]);
    await assert.rejects(poolComparisons([runA, oneDomain], out), DomainMismatchError);
  });
});
