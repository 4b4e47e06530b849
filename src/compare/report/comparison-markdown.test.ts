import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { formatPoints, renderComparisonMarkdown } from "./comparison-markdown.js";
import { HAND_MADE, OPTIONS, result } from "./comparison-test-support.js";
import { pairedDifferences } from "./summarize-methods.js";

/** Rows of the Markdown table under `heading`, as trimmed cells (header first, delimiter row dropped). */
function tableUnder(markdown: string, heading: string): string[][] {
  const lines = markdown.split("\n");
  const start = lines.indexOf(heading);
  assert.ok(start >= 0, `heading ${heading}`);
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith("|")) break;
    rows.push(line.slice(1, -1).split(/(?<!\\)\|/).map((cell) => cell.trim()));
  }
  return rows.filter((row) => !row.every((cell) => /^:?-+:?$/.test(cell)));
}

describe("renderComparisonMarkdown", () => {
  const markdown = renderComparisonMarkdown(HAND_MADE, OPTIONS);

  test("Table 1 has one row per method in first-seen order with hand-computed mean ± sd", () => {
    assert.deepEqual(tableUnder(markdown, "## Table 1: all methods"), [
      ["method", "airline (%)", "retail (%)", "overall (%)", "delta vs base (points)", "seeds", "rollouts spent (mean)"],
      ["Base agent", "60.0 ± 10.0", "40.0 ± 20.0", "50.0 ± 15.0", "ref", "3", "0"],
      ["TRACE, routed adapters", "83.3 ± 5.8", "60.0 ± 10.0", "71.7 ± 5.8", "+21.7", "3", "990"],
    ]);
  });

  test("TRACE against each method, paired by seed: per-seed differences, their mean ± sd, seeds ahead", () => {
    assert.deepEqual(tableUnder(markdown, "## TRACE against each method, paired by seed"), [
      ["method", "TRACE, routed adapters − method (points, 95% interval)", "per seed", "ahead / behind / tied"],
      // 0.65 − 0.35, 0.75 − 0.50, 0.75 − 0.65: +30, +25, +10 → 21.7 ± 10.4; t(0.975, 2) = 4.3027, so ± 25.8.
      ["Base agent", "+21.7 ± 10.4 (-4.2 to +47.5)", "1: +30.0, 2: +25.0, 3: +10.0", "3 / 0 / 0 of 3"],
    ]);
    // A method on seeds 2 and 4 pairs on seed 2 only (0.75 − 0.80 and a tie are behind and tied); seed 9 alone pairs with nothing.
    const other = { method: "grpo-target", label: "GRPO on the target", group: "baseline" } as const;
    const lonely = { method: "gepa", label: "GEPA", group: "baseline" } as const;
    const more = renderComparisonMarkdown([...HAND_MADE, result({ ...other, seed: 2 }, 9, 7, 900), result({ ...other, seed: 3 }, 9, 6, 900), result({ ...other, seed: 4 }, 1, 1, 900), result({ ...lonely, seed: 9 }, 1, 1, 900)], OPTIONS);
    assert.deepEqual(tableUnder(more, "## TRACE against each method, paired by seed").slice(2), [["GRPO on the target", "-2.5 ± 3.5 (-34.3 to +29.3)", "2: -5.0, 3: +0.0", "0 / 1 / 1 of 2"]]);
    // Without TRACE there is no paired table.
    assert.doesNotMatch(renderComparisonMarkdown(HAND_MADE.filter((entry) => entry.method === "base"), OPTIONS), /paired by seed/);
  });

  test("each paired difference carries the t interval of its mean (what the dashboard shows); none from one seed", () => {
    const [base] = pairedDifferences(HAND_MADE, "trace");
    assert.ok(base?.interval);
    // +21.7 ± 10.4 over 3 seeds: t(0.975, 2) × 10.408 / √3 = 25.856.
    assert.ok(Math.abs(base.interval.low - (0.21667 - 0.25856)) < 1e-4 && Math.abs(base.interval.high - (0.21667 + 0.25856)) < 1e-4);
    const [single] = pairedDifferences(HAND_MADE.filter((entry) => entry.seed === 1), "trace");
    assert.equal(single?.interval, null);
  });

  test("Table 3 keeps only consolidation and trace methods", () => {
    const table = tableUnder(markdown, "## Table 3: consolidation vs TRACE");
    assert.deepEqual(
      table.map((row) => row[0]),
      ["method", "TRACE, routed adapters"],
    );
  });

  test("a report with failed method runs says so and which; a complete one does not", () => {
    assert.doesNotMatch(markdown, /Incomplete/);
    const partial = renderComparisonMarkdown(HAND_MADE, { ...OPTIONS, incomplete: ["seed 0 mixture (the probe stopped it)", "seed 2 sft (not run: TRACE failed on this seed)"] });
    assert.match(partial, /^\*\*Incomplete\*\*: seed 0 mixture \(the probe stopped it\); seed 2 sft \(not run: TRACE failed on this seed\) failed; the tables hold the method runs that finished/m);
  });

  test("states the title and the budget", () => {
    assert.ok(markdown.startsWith("# Comparison on τ²-bench\n"));
    assert.match(markdown, /^Budget: 1000 budgeted rollouts /m);
    assert.doesNotMatch(markdown, /Over budget/);
  });

  test("names the machine the results came from: one line when they share it, a list when they do not, nothing when none is known", () => {
    assert.doesNotMatch(markdown, /^Machine/m);
    const h100 = "NVIDIA H100 80GB HBM3 (cuda:0, bfloat16); torch 2.11.0, transformers 5.17.0, peft 0.21.0; deterministic training off";
    const shared = renderComparisonMarkdown(
      HAND_MADE.map((entry) => ({ ...entry, machine: h100 })),
      OPTIONS,
    );
    assert.match(shared, new RegExp(`^Machine: ${h100.replace(/[()+.]/g, "\\$&")}\\.$`, "m"));
    const mixed = renderComparisonMarkdown(
      HAND_MADE.map((entry) => ({ ...entry, machine: entry.seed === 1 ? h100 : "AMD EPYC, 2 cores (cpu, float32); deterministic training off" })),
      OPTIONS,
    );
    assert.match(mixed, /^Machines \(each result names its own in result\.json\):$/m);
    assert.match(mixed, /^- NVIDIA H100 80GB HBM3 .*: base seed 1, trace seed 1$/m);
    assert.match(mixed, /^- AMD EPYC, 2 cores \(cpu, float32\); deterministic training off: base seed 2, trace seed 2, base seed 3, trace seed 3$/m);
  });

  test("one seed gives ± 0.0 and says n; no base drops the delta column; over-budget seeds are named", () => {
    const single = renderComparisonMarkdown(
      [result({ method: "gepa", label: "GEPA | prompts", group: "consolidation", seed: 7 }, 3, 4, 1200)],
      OPTIONS,
    );
    assert.deepEqual(tableUnder(single, "## Table 1: all methods"), [
      ["method", "airline (%)", "retail (%)", "overall (%)", "seeds", "rollouts spent (mean)"],
      ["GEPA \\| prompts", "30.0 ± 0.0", "40.0 ± 0.0", "35.0 ± 0.0", "1", "1200"],
    ]);
    assert.match(single, /n = 1/);
    assert.match(single, /Over budget: gepa seed 7 spent 1200 of 1000\./);
  });

  test("a method over its own limit (below the report's largest) is named, and the budget rule replaces the number", () => {
    const gepa = result({ method: "gepa", label: "GEPA", group: "baseline", seed: 3 }, 3, 4, 600);
    const capped = { ...gepa, budget: { ...gepa.budget, limit: 512 } };
    const within = result({ method: "sft", label: "SFT", group: "consolidation", seed: 3 }, 3, 4, 600);
    const text = renderComparisonMarkdown([capped, within], { ...OPTIONS, budgetRule: "what TRACE spent on the seed (seed 3: 512)" });
    assert.match(text, /^Budget: what TRACE spent on the seed \(seed 3: 512\) \(training \+ calibration/m);
    assert.match(text, /Over budget: gepa seed 3 spent 600 of 512\./);
    assert.doesNotMatch(text, /sft seed 3 spent/);
  });

  test("a Notes section lists each method's notes per seed, and is left out when no result has any", () => {
    assert.doesNotMatch(markdown, /## Notes/);
    const gepa = { ...result({ method: "gepa", label: "GEPA", group: "baseline", seed: 2 }, 3, 4, 900), notes: ["5 candidates", "the agent's own prompt deployed"] };
    const plain = result({ method: "sft", label: "SFT", group: "consolidation", seed: 2 }, 3, 4, 900);
    const noted = renderComparisonMarkdown([gepa, plain], OPTIONS);
    const section = noted.slice(noted.indexOf("## Notes"));
    assert.equal(section, "## Notes\n\n- GEPA, seed 2: 5 candidates; the agent's own prompt deployed\n");
  });

  test("a table of pass rates per kind of task when results carry kinds, mean ± sd over the seeds that have each kind", () => {
    const withKinds = (partial: Parameters<typeof result>[0], counts: Record<string, [number, number]>) => {
      const made = result(partial, 0, 0, 100);
      const groups = Object.fromEntries(Object.entries(counts).map(([kind, [passed, total]]) => [kind, { passed, total }]));
      return { ...made, domains: [{ domain: "mini", passed: 0, total: 10, meanReward: 0, groups }] };
    };
    const kinds = renderComparisonMarkdown(
      [
        withKinds({ method: "base", label: "Base agent", group: "baseline", seed: 0 }, { payment: [1, 4], composite: [0, 6] }),
        withKinds({ method: "trace", label: "TRACE", group: "trace", seed: 0 }, { payment: [3, 4], composite: [3, 6] }),
        withKinds({ method: "trace", label: "TRACE", group: "trace", seed: 1 }, { payment: [4, 4] }),
      ],
      OPTIONS,
    );
    assert.deepEqual(tableUnder(kinds, "## Pass rate per kind of task"), [
      ["method", "composite (6)", "payment (4)"],
      ["Base agent", "0.0 ± 0.0", "25.0 ± 0.0"],
      ["TRACE", "50.0 ± 0.0", "87.5 ± 17.7"],
    ]);
    assert.doesNotMatch(markdown, /per kind of task/);
    // Pooled evaluation splits hold different numbers of a kind: the header gives the fewest and the most.
    const pooled = renderComparisonMarkdown(
      [withKinds({ method: "base", label: "Base agent", group: "baseline", seed: 0 }, { payment: [1, 4] }), withKinds({ method: "base", label: "Base agent", group: "baseline", seed: 1 }, { payment: [1, 5] })],
      OPTIONS,
    );
    assert.deepEqual(tableUnder(pooled, "## Pass rate per kind of task")[0], ["method", "payment (4–5)"]);
  });

  test("formats signed points", () => {
    assert.deepEqual([formatPoints(0.2166), formatPoints(-0.04), formatPoints(0), formatPoints(-0.00001)], ["+21.7", "-4.0", "+0.0", "+0.0"]);
  });
});

test("a graded domain (ToolSandbox's similarity) gets a mean-reward table; pass/fail domains do not", () => {
  // retail graded: base 0.41, 0.43, 0.45 → 0.430 ± 0.020; TRACE 0.55, 0.57, 0.53 → 0.550 ± 0.020; delta +0.120.
  const similarities: Record<string, number[]> = { base: [0.41, 0.43, 0.45], trace: [0.55, 0.57, 0.53] };
  const graded = HAND_MADE.map((entry) => ({ ...entry, domains: entry.domains.map((domain) => (domain.domain === "retail" ? { ...domain, meanReward: similarities[entry.method]![entry.seed - 1]! } : domain)) }));
  assert.deepEqual(tableUnder(renderComparisonMarkdown(graded, OPTIONS), "## Mean reward"), [
    ["method", "retail mean reward", "retail delta vs base", "seeds"],
    ["Base agent", "0.430 ± 0.020", "ref", "3"],
    ["TRACE, routed adapters", "0.550 ± 0.020", "+0.120", "3"],
  ]);
  assert.ok(!renderComparisonMarkdown(HAND_MADE, OPTIONS).includes("## Mean reward"), "no section when every reward is pass/fail");
});
