/** comparison.md: Table 1 (all methods) and Table 3 (consolidation vs TRACE) as mean ± sd pass rates over seeds, and the mean reward where it is graded. */
import { markdownTable } from "markdown-table";
import type { ComparisonReportOptions, EvaluationSplit, MethodSeedResult } from "./comparison-types.js";
import { meanInterval, summarize, type MeanInterval, type Summary } from "./summary-statistics.js";
import { gradedDomains, pairedDifferences, summarizeKinds, summarizeMethods, type MethodSummary, type PairedDifference } from "./summarize-methods.js";

/** Identifier of the method that the "delta vs base" column is measured from. */
const BASE_METHOD = "base";

/** Identifier of the method the paired table compares every other method with. */
const TRACE_METHOD = "trace";

/** Formats a pass-rate summary (rates in [0, 1]) as `mean ± sd` in percent with one decimal. */
function formatPercent(summary: Summary): string {
  return `${(summary.mean * 100).toFixed(1)} ± ${(summary.standardDeviation * 100).toFixed(1)}`;
}

/** `value` with `digits` decimals and a sign; a value that rounds to zero reads `+0…`. */
function formatSigned(value: number, digits: number): string {
  const text = value.toFixed(digits);
  return value >= 0 || Number(text) === 0 ? `+${text.replace("-", "")}` : text;
}

/** Formats a difference of pass rates in percentage points with a sign, e.g. `+12.5`. */
export function formatPoints(difference: number): string {
  return formatSigned(difference * 100, 1);
}

function formatCount(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(1);
}

function escapeCell(text: string): string {
  return text.replaceAll("|", "\\|").replaceAll("\n", " ");
}

function table(methods: readonly MethodSummary[], domains: readonly string[], base: MethodSummary | undefined): string {
  const header = [
    "method",
    ...domains.map((domain) => `${escapeCell(domain)} (%)`),
    "overall (%)",
    ...(base ? ["delta vs base (points)"] : []),
    "seeds",
    "rollouts spent (mean)",
  ];
  const rows = methods.map((method) => [
    escapeCell(method.label),
    ...domains.map((domain) => formatPercent(method.domains.get(domain)!)),
    formatPercent(method.overall),
    ...(base ? [method === base ? "ref" : formatPoints(method.overall.mean - base.overall.mean)] : []),
    String(method.overall.count),
    formatCount(method.spent.mean),
  ]);
  return markdownTable([header, ...rows], { align: ["l", ...header.slice(1).map(() => "r" as const)] });
}

/** `mean ± sd` of rewards in [0, 1], three decimals. */
function formatReward(summary: Summary): string {
  return `${summary.mean.toFixed(3)} ± ${summary.standardDeviation.toFixed(3)}`;
}

/**
 * "Mean reward": for the domains whose reward is graded (ToolSandbox's similarity, the figure its paper reports), each
 * method's mean reward over seeds and its difference from the base's; empty when every reward is pass/fail.
 */
function rewardTable(methods: readonly MethodSummary[], domains: readonly string[], base: MethodSummary | undefined): string[] {
  if (domains.length === 0) return [];
  const header = ["method", ...domains.map((domain) => `${escapeCell(domain)} mean reward`), ...(base ? domains.map((domain) => `${escapeCell(domain)} delta vs base`) : []), "seeds"];
  const rows = methods.map((method) => [
    escapeCell(method.label),
    ...domains.map((domain) => formatReward(method.meanRewards.get(domain)!)),
    ...(base ? domains.map((domain) => (method === base ? "ref" : formatSigned(method.meanRewards.get(domain)!.mean - base.meanRewards.get(domain)!.mean, 3))) : []),
    String(method.overall.count),
  ]);
  return [
    "## Mean reward",
    "",
    markdownTable([header, ...rows], { align: ["l", ...header.slice(1).map(() => "r" as const)] }),
    "",
    "Graded rewards in [0, 1], mean ± sd over seeds (ToolSandbox: the similarity; the tables above count an episode as passed only at 1).",
    "",
  ];
}

/** "Pass rate per kind of task": a table per domain whose results carry kinds (`summarizeKinds`); empty when none do. */
function kindTables(results: readonly MethodSeedResult[], domains: readonly string[]): string[] {
  const sections: string[] = [];
  for (const summary of summarizeKinds(results)) {
    const header = ["method", ...summary.kinds.map(({ kind, episodes, maximumEpisodes }) => `${escapeCell(kind)} (${episodes}${maximumEpisodes === episodes ? "" : `–${maximumEpisodes}`})`)];
    const rows = summary.methods.map((method) => [escapeCell(method.label), ...method.rates.map((rate) => (rate === null ? "-" : formatPercent(rate)))]);
    if (domains.length > 1) sections.push(`### ${escapeCell(summary.domain)}`, "");
    sections.push(markdownTable([header, ...rows], { align: ["l", ...summary.kinds.map(() => "r" as const)] }), "");
  }
  if (sections.length === 0) return [];
  return ["## Pass rate per kind of task", "", ...sections, "Cells are pass rates in percent, mean ± sd over seeds; each column names a kind of task and its episodes per seed (a task may count under more than one kind: TRACE-mini's precondition tasks also under whether the order is pending).", ""];
}

/**
 * "TRACE against each method, paired by seed": per method, TRACE's overall pass rate minus the method's on each seed
 * both ran (mean ± sd of the differences with their 95% t interval, each seed's, and on how many seeds TRACE is
 * ahead). Empty without TRACE.
 */
function pairedTable(results: readonly MethodSeedResult[], paired: readonly PairedDifference[]): string[] {
  const trace = results.find((result) => result.method === TRACE_METHOD);
  if (paired.length === 0 || trace === undefined) return [];
  const header = ["method", `${escapeCell(trace.label)} − method (points, 95% interval)`, "per seed", "ahead / behind / tied"];
  const rows = paired.map((method) => [
    escapeCell(method.label),
    formatLead(method.summary, method.interval),
    method.seeds.map((seed, index) => `${seed}: ${formatPoints(method.differences[index]!)}`).join(", "),
    `${method.ahead} / ${method.behind} / ${method.seeds.length - method.ahead - method.behind} of ${method.seeds.length}`,
  ]);
  return [
    "## TRACE against each method, paired by seed",
    "",
    markdownTable([header, ...rows], { align: ["l", "r", "l", "r"] }),
    "",
    "Each seed's difference of overall pass rates (a method trained on seed s against TRACE trained on seed s), mean ± sample sd over the seeds both ran, with the two-sided 95% Student-t interval of the mean (from two seeds on).",
    "",
  ];
}

/** `mean ± sd (95% interval low to high)` of differences in points; the interval left out below two values. */
function formatLead(summary: Summary, interval: MeanInterval | null = meanInterval(summary)): string {
  const spread = `${formatPoints(summary.mean)} ± ${(summary.standardDeviation * 100).toFixed(1)}`;
  return interval === null ? spread : `${spread} (${formatPoints(interval.low)} to ${formatPoints(interval.high)})`;
}

/**
 * "TRACE against each method, over evaluation splits" (pooled reports with two or more splits): the paired lead over
 * every replicate and over the splits' means, each with its 95% t interval, each split's mean, and on how many splits
 * TRACE is ahead. Splits vary in their tasks, so the interval over splits is the one a claim about new tasks needs.
 */
function splitTable(results: readonly MethodSeedResult[], paired: readonly PairedDifference[], splits: readonly EvaluationSplit[] | undefined): string[] {
  if (splits === undefined || splits.length < 2) return [];
  const trace = results.find((result) => result.method === TRACE_METHOD);
  if (paired.length === 0 || trace === undefined) return [];
  const rows = paired.flatMap((method) => {
    const bySeed = new Map(method.seeds.map((seed, index) => [seed, method.differences[index]!]));
    const means = splits.flatMap((split) => {
      const differences = split.replicates.flatMap((replicate) => (bySeed.has(replicate) ? [bySeed.get(replicate)!] : []));
      return differences.length === 0 ? [] : [{ name: split.name, mean: summarize(differences).mean }];
    });
    if (means.length === 0) return [];
    const overSplits = summarize(means.map((split) => split.mean));
    return [
      [
        escapeCell(method.label),
        formatLead(method.summary, method.interval),
        formatLead(overSplits),
        means.map((split) => `${escapeCell(split.name)}: ${formatPoints(split.mean)}`).join(", "),
        `${means.filter((split) => split.mean > 0).length} / ${means.filter((split) => split.mean < 0).length} of ${means.length}`,
      ],
    ];
  });
  const header = ["method", `${escapeCell(trace.label)} − method over runs (points, 95% interval)`, "over split means (points, 95% interval)", "per split", "splits ahead / behind"];
  return [
    "## TRACE against each method, over evaluation splits",
    "",
    `Splits: ${splits.map((split) => `${escapeCell(split.name)} (seeds ${split.replicates.join(", ")})`).join("; ")}.`,
    "",
    markdownTable([header, ...rows], { align: ["l", "r", "r", "l", "r"] }),
    "",
    "Over runs, every (split, training seed) pair counts as one draw; over split means, each split counts once, so the interval also covers how much the tasks of a split move the lead. Intervals are Student-t, two-sided 95%.",
    "",
  ];
}

/** Results that spent more than their own limit (which is at most the report's `budget`). */
function overBudget(results: readonly MethodSeedResult[]): string[] {
  return results.filter((result) => result.budget.spent > result.budget.limit).map((result) => `${result.method} seed ${result.seed} spent ${result.budget.spent} of ${result.budget.limit}`);
}

/** Which machine produced the results (one line; several when seeds or methods ran on different machines). */
function machineLines(results: readonly MethodSeedResult[]): string[] {
  const machines = [...new Set(results.flatMap((result) => (result.machine === undefined ? [] : [result.machine])))];
  if (machines.length === 0) return [];
  if (machines.length === 1) return [`Machine: ${machines[0]}.`, ""];
  const runs = (machine: string) => results.filter((result) => result.machine === machine).map((result) => `${result.method} seed ${result.seed}`);
  return ["Machines (each result names its own in result.json):", "", ...machines.map((machine) => `- ${machine}: ${runs(machine).join(", ")}`), ""];
}

/** Renders comparison.md from all methods' results; throws the typed errors of `validateResults`. */
export function renderComparisonMarkdown(results: readonly MethodSeedResult[], options: ComparisonReportOptions): string {
  const { domains, methods } = summarizeMethods(results);
  const base = methods.find((method) => method.method === BASE_METHOD);
  const consolidation = methods.filter((method) => method.group === "consolidation" || method.group === "trace");
  const exceeded = overBudget(results);
  const paired = pairedDifferences(results, TRACE_METHOD);
  const lines = [
    `# ${options.title}`,
    "",
    `Budget: ${options.budgetRule ?? `${options.budget} budgeted rollouts`} (training + calibration + selection) per method and seed; evaluation episodes are not counted.` +
      (exceeded.length > 0 ? ` Over budget: ${exceeded.join("; ")}.` : ""),
    "",
    ...(options.incomplete === undefined || options.incomplete.length === 0
      ? []
      : [`**Incomplete**: ${options.incomplete.map(escapeCell).join("; ")} failed; the tables hold the method runs that finished (\`seeds\` says how many per method). Run again to resume the failed ones.`, ""]),
    ...(options.replicates === undefined
      ? []
      : [`Pooled: each seed of these tables is one (run, training seed) pair, and TRACE is paired with a method within it: ${options.replicates.map((name, index) => `${index} = ${escapeCell(name)}`).join("; ")}.`, ""]),
    ...machineLines(results),
    "Cells are evaluation pass rates in percent, mean ± sample standard deviation over seeds; `seeds` is n. " +
      `"overall" pools all domains' episodes of a seed.` +
      (base ? ` "delta vs base" is the difference of overall means from ${escapeCell(base.label)}, in percentage points.` : ""),
    ...(methods.some((method) => method.overall.count === 1) ? ["", "With n = 1 the ± 0.0 measures no spread: one seed only."] : []),
    "",
    "## Table 1: all methods",
    "",
    table(methods, domains, base),
    "",
    "## Table 3: consolidation vs TRACE",
    "",
    consolidation.length > 0 ? table(consolidation, domains, base) : "No consolidation or TRACE method in this comparison.",
    "",
    ...rewardTable(methods, gradedDomains(results), base),
    ...pairedTable(results, paired),
    ...splitTable(results, paired, options.splits),
    ...kindTables(results, domains),
  ];
  const noted = results.filter((result) => (result.notes ?? []).length > 0);
  if (noted.length > 0) {
    lines.push("## Notes", "", ...noted.map((result) => `- ${escapeCell(result.label)}, seed ${result.seed}: ${(result.notes ?? []).join("; ")}`), "");
  }
  return lines.join("\n");
}
