/**
 * `npm run bench:pooled-evidence [-- --summaries FILE --runs DIR[,DIR…]]`: the README's pooled TRACE-mini v2 figures
 * recomputed from the repository — TRACE's lead over each method over every fresh test split, the splits whose result
 * files are kept (`docs/results/mini-v2/t*`) pooled with the older ones known by their reported summaries
 * (`docs/results/mini-v2/summary-only-splits.json`). One table: the lead over split means and over runs, with their
 * 95% Student-t intervals. Nothing is trained or sampled.
 */
import { parseArgs } from "node:util";
import { markdownTable } from "markdown-table";
import { evidenceRunDirectories, poolEvidence, readSummarySplits, type PooledLead, type SummarySplit } from "../compare/evidence-pool.js";

const { values } = parseArgs({
  options: {
    summaries: { type: "string", default: "docs/results/mini-v2/summary-only-splits.json" },
    /** Run directories, comma-separated (default: every `t*` directory under docs/results/mini-v2, the fresh test splits' runs). */
    runs: { type: "string" },
  },
});
let runDirectories: string[];
let summarySplits: SummarySplit[];
let leads: PooledLead[];
try {
  runDirectories = evidenceRunDirectories(values.runs);
  summarySplits = readSummarySplits(values.summaries);
  leads = poolEvidence(summarySplits, runDirectories);
} catch (error) {
  // Bad input is one line naming what was wrong, not a stack trace.
  console.error(`bench:pooled-evidence: ${(error as Error).message}`);
  process.exit(1);
}

const points = (value: number) => `${value >= 0 ? "+" : ""}${value.toFixed(2)}`;
const interval = (range: { low: number; high: number } | null) => (range === null ? "-" : `${points(range.low)} to ${points(range.high)}`);
const rows = leads.map((lead) => [
  lead.method,
  String(lead.splits.count),
  points(lead.splits.mean),
  interval(lead.splitsInterval),
  lead.runs === undefined ? "-" : String(lead.runs.summary.count),
  lead.runs === undefined ? "-" : `${points(lead.runs.summary.mean)} ± ${lead.runs.summary.standardDeviation.toFixed(2)}`,
  lead.runs === undefined ? "-" : interval(lead.runs.interval),
  lead.runs === undefined ? "-" : `${lead.runs.ahead} of ${lead.runs.summary.count}`,
]);
const header = ["TRACE − method", "splits", "over split means", "95% interval", "runs", "over runs (mean ± sd)", "95% interval", "TRACE ahead"];
console.log(`\nTRACE's lead in points: ${summarySplits.length} splits from ${values.summaries} (their summaries) and ${runDirectories.length} run directories (${runDirectories.join(", ")})\n`);
console.log(markdownTable([header, ...rows], { align: ["l", "r", "r", "r", "r", "r", "r", "r"] }));
console.log("\nOver runs needs each summary-only split's paired lead (mean, sd, seeds ahead); a method without it is read over split means only.");
