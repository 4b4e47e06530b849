import assert from "node:assert/strict";
import { readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { combineSummaries, miniSplitRange, poolEvidence, readSummarySplits, SummarySplitsError, type SummarySplit } from "./evidence-pool.js";
import { PoolComparisonsError } from "./pool-comparisons.js";
import { result, runOnSplit } from "./report/comparison-test-support.js";
import { summarize } from "./report/summary-statistics.js";
import { scratchDirectory } from "../testing/scratch-directory.js";

const BASE = { method: "base", label: "Base agent", group: "baseline" } as const;
const TRACE = { method: "trace", label: "TRACE", group: "trace" } as const;
const GEPA = { method: "gepa", label: "GEPA", group: "baseline" } as const;

function writeSummaries(value: unknown): string {
  const file = path.join(scratchDirectory("trace-summaries-"), "splits.json");
  writeFileSync(file, JSON.stringify(value));
  return file;
}

describe("combineSummaries", () => {
  test("gives the mean and sample sd of all the groups' values together", () => {
    const groups = [
      [3, 5, 9, 1],
      [12, 10],
      [-4, 0, 2, 2, 7],
    ];
    const combined = combineSummaries(groups.map((values) => summarize(values)));
    const direct = summarize(groups.flat());
    assert.equal(combined.count, direct.count);
    assert.ok(Math.abs(combined.mean - direct.mean) < 1e-12);
    assert.ok(Math.abs(combined.standardDeviation - direct.standardDeviation) < 1e-12);
  });
});

describe("poolEvidence", () => {
  test("pools a summary-only split with a run directory's split, over split means and over runs", () => {
    // Run split: TRACE − base per seed (in points) 30, 10; TRACE − GEPA 20, 20.
    const run = runOnSplit(500, [
      result({ ...BASE, seed: 0 }, 4, 4, 0),
      result({ ...TRACE, seed: 0 }, 7, 7, 10),
      result({ ...GEPA, seed: 0 }, 5, 5, 10),
      result({ ...BASE, seed: 1 }, 5, 5, 0),
      result({ ...TRACE, seed: 1 }, 6, 6, 10),
      result({ ...GEPA, seed: 1 }, 4, 4, 10),
    ]);
    const older: SummarySplit = { name: "older", seeds: 3, passRates: { base: 40, trace: 50, gepa: 42 }, paired: { base: { mean: 10, sd: 2, ahead: 3 } } };
    const leads = poolEvidence([older], [run]);
    const base = leads.find((lead) => lead.method === "base")!;
    assert.deepEqual(
      base.perSplit.map((split) => split.name),
      ["older", "mini 500–599"],
    );
    assert.ok(Math.abs(base.splits.mean - 15) < 1e-9); // (10 + 20) / 2
    // Over runs: three values of mean 10 and sd 2 with 30 and 10 — the same as the values 8, 10, 12, 30, 10.
    const direct = summarize([8, 10, 12, 30, 10]);
    assert.equal(base.runs?.summary.count, 5);
    assert.ok(Math.abs(base.runs.summary.mean - direct.mean) < 1e-9);
    assert.ok(Math.abs(base.runs.summary.standardDeviation - direct.standardDeviation) < 1e-9);
    assert.equal(base.runs?.ahead, 5);
    // GEPA: no paired summary on the older split, so over split means only (its lead there from the pass rates).
    const gepa = leads.find((lead) => lead.method === "gepa")!;
    assert.equal(gepa.runs, undefined);
    assert.ok(Math.abs(gepa.splits.mean - 14) < 1e-9); // (8 + 20) / 2
  });

  test("leaves out a method some split lacks", () => {
    const run = runOnSplit(700, [result({ ...BASE, seed: 0 }, 4, 4, 0), result({ ...TRACE, seed: 0 }, 7, 7, 10), result({ ...BASE, seed: 1 }, 4, 4, 0), result({ ...TRACE, seed: 1 }, 6, 6, 10)]);
    const leads = poolEvidence([{ name: "older", seeds: 2, passRates: { base: 40, trace: 50, gepa: 42 }, paired: {} }], [run]);
    assert.deepEqual(
      leads.map((lead) => lead.method),
      ["base"],
    );
  });

  test("refuses a run directory without comparison results, as trace pool does", () => {
    const empty = scratchDirectory("trace-evidence-empty-");
    assert.throws(() => poolEvidence([], [empty]), (error: unknown) => error instanceof PoolComparisonsError && error.runDirectory === empty && /has no comparison results/.test(error.message));
  });

  test("the repository's TRACE-mini v2 evidence: nineteen splits, 114 training runs (the README's pooled figures)", () => {
    const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../docs/results/mini-v2");
    const runs = readdirSync(root)
      .filter((name) => /^t(2[5-9]|3[1-5])[ab]$/.test(name))
      .map((name) => path.join(root, name));
    const leads = poolEvidence(readSummarySplits(path.join(root, "summary-only-splits.json")), runs);
    const base = leads.find((lead) => lead.method === "base")!;
    const grpo = leads.find((lead) => lead.method === "grpo-target")!;
    assert.equal(base.splits.count, 19);
    assert.equal(base.runs?.summary.count, 114);
    assert.equal(base.runs?.ahead, 114);
    assert.equal(base.runs.summary.mean.toFixed(1), "15.7");
    assert.equal(grpo.runs!.summary.mean.toFixed(1), "6.1");
    assert.ok(base.runs.interval!.low > 14 && grpo.runs!.interval!.low > 4.5);
  });
});

describe("readSummarySplits", () => {
  test("names the field that is wrong", () => {
    const file = writeSummaries({ splits: [{ name: "a", seeds: 6, passRates: { trace: 120 } }] });
    assert.throws(() => readSummarySplits(file), (error: unknown) => error instanceof SummarySplitsError && error.message.includes("splits.0.passRates.trace") && error.file === file);
  });

  test("refuses more seeds ahead than the split has, and a split without TRACE", () => {
    const ahead = writeSummaries({ splits: [{ name: "a", seeds: 2, passRates: { trace: 50, base: 40 }, paired: { base: { mean: 10, sd: 1, ahead: 3 } } }] });
    assert.throws(() => readSummarySplits(ahead), /ahead on 3 seeds of base, more than its 2/);
    const noTrace = writeSummaries({ splits: [{ name: "a", seeds: 2, passRates: { base: 40 } }] });
    assert.throws(() => readSummarySplits(noTrace), /no pass rate for trace/);
    assert.throws(() => readSummarySplits(path.join(scratchDirectory("trace-summaries-"), "no-such-summaries.json")), SummarySplitsError);
  });
});

describe("miniSplitRange", () => {
  test("reads the seed range of a split named as trace pool names it, and nothing else", () => {
    assert.deepEqual(miniSplitRange("mini 3700000–3700099"), { start: 3700000, count: 100 });
    assert.equal(miniSplitRange("the target of runs/x"), undefined);
    assert.equal(miniSplitRange("mini 3700000-3700099"), undefined);
  });
});
