/**
 * `npm run bench:base-failures [-- --config configs/mini-v2-cpu.json --model models/mini-v2-base --ranges 1600000,1700000 --tasks 100]`:
 * issue 16's item 2 on several held-out ranges at once — the base model of a TRACE-mini configuration evaluated as the
 * evaluate stage evaluates it (the configuration's evaluation settings, greedy by default), on `--tasks` target tasks
 * from each range's first seed, and its failed episodes attributed to the designed deficits as `eval/base-failures.json`
 * attributes them (`summarizeMiniFailures`). For the failures no deficit explains, the free-running slips and the closing
 * reply's claims of changes never made. A real worker on this machine; one markdown table, a total row last.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { markdownTable } from "markdown-table";
import { runEvaluation } from "../pipeline/evaluation-episodes.js";
import { summarizeMiniFailures, type MiniFailureSummary } from "../pipeline/mini-failures.js";
import { createPipelineContext } from "../pipeline/pipeline-context.js";
import { parsePipelineConfig } from "../pipeline/pipeline-config.js";
import { loadTargetDomains } from "../pipeline/target-tasks.js";
import { openTrajectoryStore } from "../store/trajectory-store.js";

const { values } = parseArgs({
  options: {
    config: { type: "string", default: "configs/mini-v2-cpu.json" },
    /** The base checkpoint (default: the configuration's `model.path`). */
    model: { type: "string" },
    /** First seeds of the held-out ranges, comma-separated (default: the seventeen fresh test splits of docs/trace-mini-v2.md). */
    ranges: { type: "string", default: "1600000,1700000,1800000,1900000,2000000,2100000,2200000,2300000,2400000,2500000,2600000,2700000,2800000,2900000,3100000,3200000,3300000" },
    tasks: { type: "string", default: "100" },
  },
});
const ranges = values.ranges.split(",").map((text) => Number.parseInt(text, 10));
if (ranges.some((start) => !Number.isInteger(start) || start < 0)) throw new Error(`--ranges takes comma-separated first seeds, got ${JSON.stringify(values.ranges)}`);
const taskCount = Number.parseInt(values.tasks, 10);
if (!(taskCount > 0)) throw new Error(`--tasks takes a positive count, got ${JSON.stringify(values.tasks)}`);

const scratch = mkdtempSync(path.join(os.tmpdir(), "trace-base-failures-"));
const raw = JSON.parse(readFileSync(values.config, "utf8")) as { model: { path?: string }; target: { kind?: string; evaluationSeedStart?: number; evaluationSeedCount?: number } };
if (raw.target.kind !== "mini") throw new Error(`${values.config} is not a TRACE-mini configuration (target.kind ${JSON.stringify(raw.target.kind)})`);
/** The configuration with its held-out range moved to `start` (and the base checkpoint replaced when asked). */
const configFor = (start: number) =>
  parsePipelineConfig(
    { ...raw, model: { ...raw.model, ...(values.model === undefined ? {} : { path: values.model }) }, target: { ...raw.target, evaluationSeedStart: start, evaluationSeedCount: taskCount } },
    values.config,
    { runDirectory: scratch },
  );
const first = configFor(ranges[0]!);
const context = createPipelineContext(first, (line) => console.error(line));
const store = openTrajectoryStore(path.join(scratch, "episodes.sqlite"));
const summaries: [string, MiniFailureSummary][] = [];
try {
  const base = await context.sampler();
  for (const start of ranges) {
    const config = configFor(start);
    for (const { environment, evaluationTasks, makeUser, moduleEnvironment } of await loadTargetDomains(config)) {
      if (moduleEnvironment === undefined) throw new Error(`${values.config}: the target has no module environment to attribute failures with`);
      const named = { ...environment, name: `${environment.name}/base@${start}` };
      const started = performance.now();
      const score = await runEvaluation({ config, environment: named, tasks: evaluationTasks, store, makeUser, makePolicy: () => base, metadata: { bench: "base-failures", range: start } });
      const summary = await summarizeMiniFailures(moduleEnvironment, store.listEpisodes({ environment: named.name }));
      summaries.push([`${start}–${start + taskCount - 1}`, summary]);
      console.error(`${named.name}: ${score.passed}/${score.total} passed, ${summary.explained}/${summary.failed} failures explained (${((performance.now() - started) / 1000).toFixed(0)} s)`);
    }
  }
} finally {
  store.close();
  await context.close();
  rmSync(scratch, { recursive: true, force: true });
}

const percent = (part: number, whole: number) => (whole === 0 ? "-" : `${((100 * part) / whole).toFixed(1)}%`);
const rows: string[][] = [["held-out range", "failed", "explained", "share", "incomplete", "payment", "precondition", "other", "other: id / refused / none", "other: claims a change never made (a looked-up non-pending order called cancelled)"]];
const row = (name: string, summaries: MiniFailureSummary[]) => {
  const sum = (read: (summary: MiniFailureSummary) => number) => summaries.reduce((total, summary) => total + read(summary), 0);
  const failed = sum((summary) => summary.failed);
  const explained = sum((summary) => summary.explained);
  rows.push([
    name,
    String(failed),
    String(explained),
    percent(explained, failed),
    String(sum((summary) => summary.byDeficit.incomplete)),
    String(sum((summary) => summary.byDeficit.payment)),
    String(sum((summary) => summary.byDeficit.precondition)),
    String(sum((summary) => summary.other)),
    `${sum((summary) => summary.otherSlips.inventedIdentifier)} / ${sum((summary) => summary.otherSlips.refusedCall)} / ${sum((summary) => summary.otherSlips.none)}`,
    `${sum((summary) => summary.otherClaims.unmadeChange)} (${sum((summary) => summary.otherClaims.notPendingCalledCancelled)})`,
  ]);
};
for (const [name, summary] of summaries) row(name, [summary]);
if (summaries.length > 1) row("all", summaries.map(([, summary]) => summary));
console.log(`\nThe base (${first.model.path}) on ${taskCount} held-out tasks a range, ${values.config}'s evaluation settings (temperature ${first.evaluation.temperature}); an episode may show several deficits\n`);
console.log(markdownTable(rows, { align: ["l", "r", "r", "r", "r", "r", "r", "r", "r", "r"] }));
