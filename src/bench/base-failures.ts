/**
 * `npm run bench:base-failures [-- --config configs/mini-v2-cpu.json --model models/mini-v2-base[,DIR…] --ranges 1600000,1700000 --tasks 100]`:
 * issue 16's item 2 on several held-out ranges at once — the base model of a TRACE-mini configuration evaluated as the
 * evaluate stage evaluates it (the configuration's evaluation settings, greedy by default), on `--tasks` target tasks
 * from each range's first seed, and its failed episodes attributed to the designed deficits as `eval/base-failures.json`
 * attributes them (`summarizeMiniFailures`). For the failures no deficit explains, the free-running slips and the closing
 * reply's claims of changes never made. A real worker on this machine; one markdown table, a total row last — or, for
 * several bases (`--model A,B`), one row per base summed over the ranges (how a change to the base recipe moves them).
 * With `--mechanics`, each base's mechanics too (`trace model mechanics` with its defaults) and, for several bases, the
 * candidate rule of docs/trace-mini-v2.md against the first (`judgeBaseCandidate`): item 1, sampled ids at least the
 * first's, item 2 with no more unexplained failures than the first's — to be read on validation ranges only.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { markdownTable } from "markdown-table";
import { pooledMiniSplitStarts } from "../compare/evidence-pool.js";
import { runEvaluation } from "../pipeline/evaluation-episodes.js";
import { summarizeMiniFailures, type MiniFailureSummary } from "../pipeline/mini-failures.js";
import { createPipelineContext } from "../pipeline/pipeline-context.js";
import { parsePipelineConfig } from "../pipeline/pipeline-config.js";
import { loadTargetDomains } from "../pipeline/target-tasks.js";
import { openTrajectoryStore } from "../store/trajectory-store.js";
import { HELD_OUT_MECHANICS_DEFAULTS, measureCheckpointMechanics } from "../pipeline/base-stage.js";
import { judgeBaseCandidate, type BaseReading } from "../pipeline/base-candidate.js";
import type { MechanicsReport } from "../envs/mini/mechanics.js";

const { values } = parseArgs({
  options: {
    config: { type: "string", default: "configs/mini-v2-cpu.json" },
    /** The base checkpoint, or several comma-separated to compare them (one row each, summed over the ranges; default: the configuration's `model.path`). */
    model: { type: "string" },
    /** First seeds of the held-out ranges, comma-separated (default: every fresh test split `npm run bench:pooled-evidence` pools). */
    ranges: { type: "string" },
    tasks: { type: "string", default: "100" },
    /** Also each base's mechanics, and (several bases) the candidate rule against the first. */
    mechanics: { type: "boolean", default: false },
  },
});
const ranges = values.ranges === undefined ? pooledMiniSplitStarts() : values.ranges.split(",").map((text) => Number.parseInt(text, 10));
if (ranges.length === 0 || ranges.some((start) => !Number.isInteger(start) || start < 0)) throw new Error(`--ranges takes comma-separated first seeds, got ${JSON.stringify(values.ranges)}`);
const taskCount = Number.parseInt(values.tasks, 10);
if (!(taskCount > 0)) throw new Error(`--tasks takes a positive count, got ${JSON.stringify(values.tasks)}`);

const raw = JSON.parse(readFileSync(values.config, "utf8")) as { model: { path?: string }; target: { kind?: string }; evaluation?: { temperature?: number } };
if (raw.target.kind !== "mini") throw new Error(`${values.config} is not a TRACE-mini configuration (target.kind ${JSON.stringify(raw.target.kind)})`);
const models = values.model === undefined ? [raw.model.path ?? ""] : values.model.split(",");
if (models.some((model) => model === "")) throw new Error(`--model takes comma-separated checkpoint directories, and ${values.config} names no model.path`);

/** Each held-out range's failure summary for the base checkpoint `model` (its own worker, stopped at the end). */
async function readBase(model: string): Promise<[string, MiniFailureSummary][]> {
  const scratch = mkdtempSync(path.join(os.tmpdir(), "trace-base-failures-"));
  /** The configuration with its held-out range moved to `start` and `model` as the base checkpoint. */
  const configFor = (start: number) =>
    parsePipelineConfig({ ...raw, model: { ...raw.model, path: model }, target: { ...raw.target, evaluationSeedStart: start, evaluationSeedCount: taskCount } }, values.config, { runDirectory: scratch });
  const context = createPipelineContext(configFor(ranges[0]!), (line) => console.error(line));
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
        console.error(`${model} ${named.name}: ${score.passed}/${score.total} passed, ${summary.explained}/${summary.failed} failures explained (${((performance.now() - started) / 1000).toFixed(0)} s)`);
      }
    }
  } finally {
    store.close();
    await context.close();
    rmSync(scratch, { recursive: true, force: true });
  }
  return summaries;
}

const percent = (part: number, whole: number) => (whole === 0 ? "-" : `${((100 * part) / whole).toFixed(1)}%`);
/** One figure of `summaries`, summed. */
const total = (summaries: readonly MiniFailureSummary[], read: (summary: MiniFailureSummary) => number) => summaries.reduce((sum, summary) => sum + read(summary), 0);
/** One table row: `summaries` summed. */
const row = (name: string, summaries: readonly MiniFailureSummary[]): string[] => {
  const sum = (read: (summary: MiniFailureSummary) => number) => total(summaries, read);
  const failed = sum((summary) => summary.failed);
  const explained = sum((summary) => summary.explained);
  return [
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
  ];
};
const header = ["failed", "explained", "share", "incomplete", "payment", "precondition", "other", "other: id / refused / none", "other: claims a change never made (a looked-up non-pending order called cancelled)"];
const align = ["l", "r", "r", "r", "r", "r", "r", "r", "r", "r"];
const settings = `${taskCount} held-out tasks a range, ${values.config}'s evaluation settings (temperature ${raw.evaluation?.temperature ?? "default"}); an episode may show several deficits`;

const read: [string, [string, MiniFailureSummary][]][] = [];
const mechanics = new Map<string, MechanicsReport>();
for (const model of models) {
  read.push([model, await readBase(model)]);
  if (values.mechanics) mechanics.set(model, await measureCheckpointMechanics(model));
}
if (read.length === 1) {
  const [[model, summaries]] = read as [[string, [string, MiniFailureSummary][]]];
  const rows = summaries.map(([range, summary]) => row(range, [summary]));
  if (summaries.length > 1) rows.push(row("all", summaries.map(([, summary]) => summary)));
  console.log(`\nThe base (${model}) on ${settings}\n`);
  console.log(markdownTable([["held-out range", ...header], ...rows], { align }));
} else {
  console.log(`\nEach base on ${ranges.length} held-out ranges (${ranges.join(", ")}), summed; ${settings}\n`);
  console.log(markdownTable([["base", ...header], ...read.map(([model, summaries]) => row(model, summaries.map(([, summary]) => summary)))], { align }));
}
if (values.mechanics) {
  /** What the candidate rule reads of a base: its mechanics and its failures summed over the ranges. */
  const readingOf = ([model, perRange]: [string, [string, MiniFailureSummary][]]): BaseReading => {
    const summaries = perRange.map(([, summary]) => summary);
    const sum = (key: "failed" | "explained" | "other") => total(summaries, (summary) => summary[key]);
    return { mechanics: mechanics.get(model)!, failures: { failed: sum("failed"), explained: sum("explained"), other: sum("other") } };
  };
  const reference = readingOf(read[0]!);
  const mark = (pass: boolean) => (pass ? "yes" : "no");
  const rows = read.map((entry) => {
    const reading = readingOf(entry);
    const { toolCallValidity, identifierCopying, sampled } = reading.mechanics;
    const verdict = judgeBaseCandidate(reading, reference);
    const tests = entry === read[0] ? ["(reference)", "", "", ""] : [mark(verdict.mechanics), mark(verdict.sampledIdentifiers), mark(verdict.explainedFailures), verdict.candidate ? "**yes**" : "no"];
    return [entry[0], percent(toolCallValidity, 1), percent(identifierCopying, 1), sampled === undefined ? "-" : percent(sampled.identifierCopying, 1), percent(reading.failures.explained, reading.failures.failed), String(reading.failures.other), ...tests];
  });
  console.log(`\nMechanics (trace model mechanics' defaults: ${HELD_OUT_MECHANICS_DEFAULTS.demonstrations} held-out demonstrations, ${HELD_OUT_MECHANICS_DEFAULTS.samples} own episodes a seed at temperature ${HELD_OUT_MECHANICS_DEFAULTS.temperature}) and the candidate rule against ${read[0]![0]} (validation ranges only)\n`);
  console.log(
    markdownTable(
      [["base", "well-formed calls", "exact ids", "sampled: exact ids", "failures explained", "other", "(1) item 1", "(2) sampled ids ≥ reference", "(3) ≥ 80%, other ≤ reference", "candidate"], ...rows],
      { align: ["l", "r", "r", "r", "r", "r", "c", "c", "c", "c"] },
    ),
  );
}
