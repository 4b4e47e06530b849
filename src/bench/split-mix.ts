/**
 * `npm run bench:split-mix [-- --config configs/mini-v2-gpu.json --summaries FILE --runs DIR[,DIR…] --predict START[,START…]]`:
 * how each fresh TRACE-mini v2 test split's task mix goes with TRACE's lead over the base there. The mix of every split
 * that `npm run bench:pooled-evidence` pools (the summary-only ones and the kept run directories) is generated from the
 * configuration's own target with the split's seeds (the kinds of `miniTaskKinds`, as the report's per-kind columns
 * count them); TRACE − base per split is the pooled bench's. The line fitted by least squares to the non-pending
 * precondition tasks (the kind the base fails and TRACE fixes most) predicts a split not yet read, with a band of two
 * residual standard deviations — how docs/trace-mini-v2.md declares each new split's prediction before its call.
 * Nothing is trained or sampled.
 */
import { readFileSync } from "node:fs";
import os from "node:os";
import { parseArgs } from "node:util";
import { markdownTable } from "markdown-table";
import { evidenceRunDirectories, miniSplitRange, poolEvidence, readSummarySplits } from "../compare/evidence-pool.js";
import { fitLine } from "../compare/report/summary-statistics.js";
import { parsePipelineConfig } from "../pipeline/pipeline-config.js";
import { closeTargetDomains, loadTargetDomains } from "../pipeline/target-tasks.js";

const { values } = parseArgs({
  options: {
    /** The TRACE-mini configuration whose target generates the splits' tasks (its families and generator settings). */
    config: { type: "string", default: "configs/mini-v2-gpu.json" },
    summaries: { type: "string", default: "docs/results/mini-v2/summary-only-splits.json" },
    /** Run directories, comma-separated (default: every `t*` directory under docs/results/mini-v2, as the pooled bench). */
    runs: { type: "string" },
    /** First seeds of splits not yet read, comma-separated: their mix and the line's prediction. */
    predict: { type: "string", default: "" },
  },
});

/** The one kind the line is fitted on, and the columns printed (those a split holds beyond these come after, in order). */
const PREDICTOR = "precondition · not pending";
const COLUMNS = ["precondition · delivered", "precondition · processed", PREDICTOR, "precondition · pending", "payment", "composite"];

function fail(message: string): never {
  console.error(`bench:split-mix: ${message}`);
  process.exit(1);
}

let runDirectories: string[];
try {
  runDirectories = evidenceRunDirectories(values.runs);
} catch (error) {
  fail(`cannot list the run directories: ${(error as Error).message}`);
}
const predictStarts = values.predict
  .split(",")
  .filter((entry) => entry !== "")
  .map((entry) => (/^\d+$/.test(entry) ? Number(entry) : fail(`--predict takes comma-separated first seeds, got ${JSON.stringify(entry)}`)));

let raw: { target?: { kind?: string } };
try {
  raw = JSON.parse(readFileSync(values.config, "utf8")) as typeof raw;
} catch (error) {
  fail(`cannot read ${values.config}: ${(error as Error).message}`);
}
if (raw.target?.kind !== "mini") fail(`${values.config} is not a TRACE-mini configuration (target.kind ${JSON.stringify(raw.target?.kind)})`);

let perSplit: { name: string; lead: number }[];
try {
  const lead = poolEvidence(readSummarySplits(values.summaries), runDirectories).find((entry) => entry.method === "base");
  if (lead === undefined) fail("no split pools TRACE's lead over the base");
  perSplit = lead.perSplit;
} catch (error) {
  fail((error as Error).message);
}

/** The task kinds of the held-out split `start`–`start + count − 1` of the configuration's target, counted. */
async function mixOf(start: number, count: number): Promise<Map<string, number>> {
  const config = parsePipelineConfig({ ...raw, target: { ...raw.target, evaluationSeedStart: start, evaluationSeedCount: count } }, values.config, { runDirectory: os.tmpdir() });
  const counts = new Map<string, number>();
  for (const domain of await loadTargetDomains(config)) {
    if (domain.taskGroups === undefined) fail(`${values.config}: the target has no task kinds to count`);
    for (const task of domain.evaluationTasks) for (const kind of domain.taskGroups(task)) counts.set(kind, (counts.get(kind) ?? 0) + 1);
  }
  return counts;
}

const splits: { name: string; lead?: number; mix: Map<string, number> }[] = [];
/** How many tasks a split not yet read holds: as many as the first split read. */
let splitSize = 100;
for (const [index, { name, lead }] of perSplit.entries()) {
  const range = miniSplitRange(name);
  if (range === undefined) fail(`split ${JSON.stringify(name)} does not name a TRACE-mini seed range ("mini START–END")`);
  if (index === 0) splitSize = range.count;
  splits.push({ name, lead, mix: await mixOf(range.start, range.count) });
}
for (const start of predictStarts) splits.push({ name: `mini ${start}–${start + splitSize - 1}`, mix: await mixOf(start, splitSize) });
await closeTargetDomains();

const read = splits.filter((split): split is typeof split & { lead: number } => split.lead !== undefined);
let fit;
try {
  fit = fitLine(read.map((split) => [split.mix.get(PREDICTOR) ?? 0, split.lead]));
} catch (error) {
  fail((error as Error).message);
}
const line = (split: { mix: Map<string, number> }) => fit.intercept + fit.slope * (split.mix.get(PREDICTOR) ?? 0);
const points = (value: number) => `${value >= 0 ? "+" : ""}${value.toFixed(1)}`;
const extra = [...new Set(splits.flatMap((split) => [...split.mix.keys()]))].filter((kind) => !COLUMNS.includes(kind) && kind !== "precondition");
const columns = [...COLUMNS, ...extra];
const rows = splits.map((split) => [
  split.lead === undefined ? `${split.name} (not read)` : split.name,
  ...columns.map((kind) => String(split.mix.get(kind) ?? 0)),
  split.lead === undefined ? "-" : points(split.lead),
  split.lead === undefined ? `${points(line(split))} ± ${(2 * fit.residualStandardDeviation).toFixed(1)}` : points(line(split)),
  split.lead === undefined ? "-" : points(split.lead - line(split)),
]);
console.log(`\nEach split's task mix (${values.config}'s target) and TRACE − base there (points; ${values.summaries} and ${runDirectories.length} run directories)\n`);
console.log(markdownTable([["split", ...columns, "TRACE − base", "line", "residual"], ...rows], { align: ["l", ...columns.map(() => "r" as const), "r", "r", "r"] }));
console.log(
  `\nLine over ${fit.count} splits: TRACE − base = ${fit.intercept.toFixed(2)} + ${fit.slope.toFixed(3)} × ${PREDICTOR} tasks (r ${fit.correlation.toFixed(2)}, residual sd ${fit.residualStandardDeviation.toFixed(1)}); a split not read is predicted with ± two residual sd.`,
);
