/**
 * `trace analyze RUN` (LLM analyst or `--labeler reference`), `trace analyze aggregate` and `trace analyze report`:
 * the capability analysis of TRACE step 2 into `RUN/analysis/` (`RUN/analysis/reference/` for the reference labeler).
 */
import { existsSync } from "node:fs";
import type { Command } from "commander";
import { PAPER_THRESHOLDS, THRESHOLD_RANGES, type AggregationThresholds } from "../analysis/aggregate-capabilities.js";
import { aggregateDirectory, type ScoresFile } from "../analysis/analysis-directory.js";
import { formatCapabilityTable } from "../analysis/analysis-report.js";
import { analyzeWithAnalyst } from "../analysis/analyze-with-analyst.js";
import { readCandidatesFile, type CandidatesFile } from "../analysis/candidates-file.js";
import { REFERENCE_CAPABILITIES } from "../analysis/reference-capabilities.js";
import { listRunFiles } from "../analysis/run-file.js";
import { runReferenceAnalysis } from "../analysis/reference-analysis.js";
import { runToolSandboxReferenceAnalysis } from "../analysis/toolsandbox-reference-analysis.js";
import { TOOLSANDBOX_REFERENCE_CAPABILITIES } from "../analysis/toolsandbox-reference-labeler.js";
import { TOOLSANDBOX_ENVIRONMENT_NAME } from "../envs/toolsandbox/environment.js";
import { writeAnalysisReport } from "../analysis/write-analysis-report.js";
import { createChatClient } from "../models/chat-client.js";
import { openTrajectoryStore, type TrajectoryStore } from "../store/trajectory-store.js";
import { openRunDirectory } from "../run/run-directory.js";
import { UsageError } from "./usage-error.js";
import { NotARunError } from "./show-command.js";
import { integerOption, numberOption } from "./integer-option.js";
import { runDataDirectories } from "./run-manifest.js";
import { addEndpointOptions, endpointOption } from "./endpoint-options.js";
import { addRunDirectoryArgument } from "./run-directory-option.js";
import { checkDirectoryPath, checkExistingDirectory, checkOutputFilePath } from "../run/path-checks.js";

export interface AnalyzeCommandOptions {
  labeler: string;
  analystUrl?: string;
  analystModel?: string;
  analystApiKey?: string;
  runs?: string;
  candidates?: string;
  contextTokens: string;
  maxOutputTokens: string;
  batchSize: string;
  maxAttempts: string;
  temperature: string;
  concurrency: string;
  dataDir?: string;
  out?: string;
  coverage: string;
  gap: string;
  minRuns?: string;
  quiet?: boolean;
}

/** ρ and δ from the command line, each within its range (`THRESHOLD_RANGES`). */
function coverageAndGap(options: { coverage: string; gap: string }): { coverage: number; gap: number } {
  return { coverage: numberOption("--coverage", options.coverage, THRESHOLD_RANGES.coverage), gap: numberOption("--gap", options.gap, THRESHOLD_RANGES.gap) };
}

function storeOf(runDirectory: string): string {
  const file = openRunDirectory(runDirectory).storeFile;
  if (!existsSync(file)) throw new NotARunError(runDirectory);
  return file;
}

/** The reference labeler's data: `--data-dir`, else the τ² data the run's config.json names (either shape). */
function runData(runDirectory: string, dataDir: string | undefined): { dataDirectory?: string; configuredDirectory?: string } {
  const { root, domainDirectory } = runDataDirectories(runDirectory);
  const dataDirectory = dataDir ?? root;
  return { ...(dataDirectory === undefined ? {} : { dataDirectory }), ...(domainDirectory === undefined ? {} : { configuredDirectory: domainDirectory }) };
}

/** Whether the run's store holds finished ToolSandbox episodes (its reference labeler is then ToolSandbox's). */
function holdsToolSandbox(store: TrajectoryStore): boolean {
  return store.summary({ environment: TOOLSANDBOX_ENVIRONMENT_NAME }).finished > 0;
}

/** The ToolSandbox export the reference labeler reads: `--data-dir`, else the one the run's config.json names. */
function toolSandboxData(runDirectory: string, dataDir: string | undefined): string {
  const { root, domainDirectory } = runDataDirectories(runDirectory);
  const directory = dataDir ?? root ?? domainDirectory;
  if (directory === undefined) throw new UsageError("the ToolSandbox reference labeler needs --data-dir (the directory of ToolSandbox's scenarios.json.gz): the run's config.json names none");
  return directory;
}

/** Where each labeler's analysis of a run goes. */
function analysisDirectories(runDirectory: string): { llm: string; reference: string } {
  const run = openRunDirectory(runDirectory);
  return { llm: run.analysisDirectory("llm"), reference: run.analysisDirectory("reference") };
}

/** `trace analyze RUN`: analysis, aggregation and report; returns the report's markdown. */
/** The LLM analyst's settings from the command line, every number checked before any request is made. */
function analystSettings(options: AnalyzeCommandOptions, base: { coverage: number; gap: number }) {
  const analyst = endpointOption(options, "analyst");
  if (analyst === undefined) throw new UsageError("the LLM analyst needs --analyst-url and --analyst-model (or use --labeler reference)");
  const runs = integerOption("--runs", options.runs ?? "10", 1);
  const minRuns = options.minRuns === undefined ? Math.ceil(0.8 * runs) : integerOption("--min-runs", options.minRuns, 1);
  if (minRuns > runs) throw new UsageError(`--min-runs ${minRuns} is more than --runs ${runs}: no capability could be kept`);
  const thresholds: AggregationThresholds = { ...base, minRuns };
  return {
    analyst,
    runs,
    thresholds,
    concurrency: integerOption("--concurrency", options.concurrency, 1),
    contextTokens: integerOption("--context-tokens", options.contextTokens, 1024),
    maxOutputTokens: integerOption("--max-output-tokens", options.maxOutputTokens, 16),
    batchSize: integerOption("--batch-size", options.batchSize, 1),
    maxAttempts: integerOption("--max-attempts", options.maxAttempts, 1),
    temperature: numberOption("--temperature", options.temperature, { minimum: 0 }),
  };
}

/** `trace analyze RUN`: analysis, aggregation and report; returns the report's markdown. Options are checked first. */
async function runAnalyzeCommand(runDirectory: string, options: AnalyzeCommandOptions, log: (line: string) => void): Promise<{ directory: string; report: string }> {
  const base = coverageAndGap(options);
  if (options.labeler !== "reference" && options.labeler !== "llm") throw new UsageError(`unknown labeler ${JSON.stringify(options.labeler)} (expected llm or reference)`);
  if (options.labeler === "reference" && (options.runs !== undefined || options.minRuns !== undefined)) {
    throw new UsageError("the reference labeler is deterministic: it writes one run and keeps a capability that passes it (min-runs 1); drop --runs and --min-runs");
  }
  const settings = options.labeler === "llm" ? analystSettings(options, base) : undefined;
  if (options.out !== undefined) checkDirectoryPath(options.out, "--out");
  const file = storeOf(runDirectory);
  const directories = analysisDirectories(runDirectory);
  let directory: string;
  if (settings === undefined) {
    directory = options.out ?? directories.reference;
    const store = openTrajectoryStore(file);
    try {
      // ToolSandbox episodes are labeled from ToolSandbox's evaluation against the export's scenarios; τ² ones against τ²'s gold.
      const { run } = holdsToolSandbox(store)
        ? runToolSandboxReferenceAnalysis({ store, outDirectory: directory, thresholds: base, dataDirectory: toolSandboxData(runDirectory, options.dataDir) })
        : runReferenceAnalysis({ store, outDirectory: directory, thresholds: base, ...runData(runDirectory, options.dataDir) });
      log(`reference labeler: ${run.totals.total_failed + run.totals.total_passed} trajectories labeled into ${directory}`);
    } finally {
      store.close();
    }
  } else {
    directory = options.out ?? directories.llm;
    const client = createChatClient({ baseUrl: settings.analyst.url, model: settings.analyst.model, maxConcurrency: settings.concurrency, apiKey: settings.analyst.apiKey });
    const store = openTrajectoryStore(file);
    try {
      // 'reference': the dictionary of the run's own reference labeler, so that its labels and the analyst's can be compared.
      let candidates: CandidatesFile | undefined;
      if (options.candidates === "reference") candidates = { candidates: [...(holdsToolSandbox(store) ? TOOLSANDBOX_REFERENCE_CAPABILITIES : REFERENCE_CAPABILITIES)] };
      else if (options.candidates !== undefined) candidates = readCandidatesFile(options.candidates);
      const result = await analyzeWithAnalyst({
        store,
        client,
        model: settings.analyst.model,
        outDirectory: directory,
        runs: settings.runs,
        thresholds: settings.thresholds,
        contextTokens: settings.contextTokens,
        maxOutputTokens: settings.maxOutputTokens,
        batchSize: settings.batchSize,
        maxAttempts: settings.maxAttempts,
        temperature: settings.temperature,
        ...(candidates === undefined ? {} : { candidates }),
        onProgress: options.quiet === true ? undefined : (line) => process.stderr.write(`${line}\n`),
      });
      const failed = [...result.failures.values()].reduce((sum, list) => sum + list.reduce((count, failure) => count + failure.keys.length, 0), 0);
      const usage = client.usage();
      log(`analyst ${settings.analyst.model}: ${usage.requests} requests, ${usage.promptTokens} prompt / ${usage.completionTokens} completion tokens; ${failed} trajectory-runs left unlabeled`);
      if (failed > 0) {
        log(`some labels could not be obtained (see the run files' "failures"); rerun the same command to retry them`);
        process.exitCode = 2;
      }
    } finally {
      store.close();
    }
  }
  const report = writeAnalysisReport({ directory, title: runDirectory, llmDirectory: directories.llm, referenceDirectory: directories.reference });
  return { directory, report };
}

export interface AggregateCommandOptions {
  runs: string;
  out: string;
  coverage: string;
  gap: string;
  minRuns: string;
}

/**
 * `trace analyze aggregate`: thresholds in range, `--runs` a directory holding at least `--min-runs` run files and
 * `--out` writable, all checked before the run files are read; then aggregates and writes.
 */
function runAggregateCommand(options: AggregateCommandOptions): ScoresFile {
  const thresholds: AggregationThresholds = { ...coverageAndGap(options), minRuns: integerOption("--min-runs", options.minRuns, 1) };
  checkExistingDirectory(options.runs, "--runs");
  checkOutputFilePath(options.out, "--out", { createDirectory: true });
  const runFiles = listRunFiles(options.runs).length;
  if (runFiles > 0 && thresholds.minRuns > runFiles) {
    throw new UsageError(`--min-runs ${thresholds.minRuns} is more than the ${runFiles} run file${runFiles === 1 ? "" : "s"} in ${options.runs}: no capability could be kept`);
  }
  return aggregateDirectory({ runsDirectory: options.runs, out: options.out, thresholds });
}

/** `trace analyze report RUN`: the report of an existing analysis. */
function runReportCommand(runDirectory: string, options: { labeler: string; dir?: string }): string {
  const directories = analysisDirectories(runDirectory);
  if (options.labeler !== "llm" && options.labeler !== "reference") throw new UsageError(`unknown labeler ${JSON.stringify(options.labeler)} (expected llm or reference)`);
  const directory = options.dir ?? (options.labeler === "reference" ? directories.reference : directories.llm);
  return writeAnalysisReport({ directory, title: runDirectory, llmDirectory: directories.llm, referenceDirectory: directories.reference });
}

export function registerAnalyzeCommands(program: Command): void {
  const write = (text: string) => void process.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
  const analyze = addRunDirectoryArgument(program.command("analyze").description("capability analysis of a run (TRACE step 2): discovery + labeling + aggregation + report into RUN/analysis/"))
    // Options of `analyze` itself come before a subcommand's name, so `aggregate --runs` is the subcommand's option.
    .enablePositionalOptions()
    .option("--labeler <labeler>", "llm (an OpenAI-compatible analyst) or reference (offline: τ² gold, or ToolSandbox's milestones)", "llm");
  addEndpointOptions(analyze, "analyst", "the analyst")
    .option("--runs <n>", "independent labeling runs N (default 10, the paper's)")
    .option("--candidates <file>", "label with this candidate_capabilities.json (or 'reference': the run's reference dictionary, τ²'s or ToolSandbox's) instead of discovering")
    .option("--context-tokens <n>", "the analyst's context window in tokens", "32768")
    .option("--max-output-tokens <n>", "tokens the analyst may generate per reply", "4096")
    .option("--batch-size <n>", "most trajectories per labeling request", "8")
    .option("--max-attempts <n>", "attempts per request when replies are invalid", "3")
    .option("--temperature <t>", "analyst sampling temperature (runs must differ to measure consistency)", "0.7")
    .option("--concurrency <n>", "analyst requests in flight at once", "4")
    .option("--data-dir <dir>", "reference labeler: τ²-bench's data/tau2 directory or a domain directory, or ToolSandbox's export directory (default: the run's config.json)")
    .option("--out <dir>", "analysis directory (default RUN/analysis, or RUN/analysis/reference)")
    .option("--coverage <rho>", "ρ: minimum coverage in a run", String(PAPER_THRESHOLDS.coverage))
    .option("--gap <delta>", "δ: minimum contrastive gap in a run", String(PAPER_THRESHOLDS.gap))
    .option("--min-runs <m>", "m: runs a capability must pass to be kept (default ⌈0.8·N⌉, 8 of 10)")
    .option("--quiet", "no progress lines on stderr")
    .action(async (runDirectory: string, options: AnalyzeCommandOptions) => {
      const { report } = await runAnalyzeCommand(runDirectory, options, write);
      write(report);
    });
  analyze
    .command("aggregate")
    .description("aggregate run_*.json (TRACE reference format) into selected_capabilities.json and capability_scores.json")
    .requiredOption("--runs <dir>", "directory of run_*.json and, optionally, candidate_capabilities.json")
    .requiredOption("--out <file>", "selected_capabilities.json to write (capability_scores.json goes beside it)")
    .option("--coverage <rho>", "ρ: minimum coverage in a run", String(PAPER_THRESHOLDS.coverage))
    .option("--gap <delta>", "δ: minimum contrastive gap in a run", String(PAPER_THRESHOLDS.gap))
    .option("--min-runs <m>", "m: runs a capability must pass to be kept", String(PAPER_THRESHOLDS.minRuns))
    .action((options: AggregateCommandOptions) => {
      const scores = runAggregateCommand(options);
      write(formatCapabilityTable(scores));
      write(`kept ${scores.capabilities.filter((score) => score.status === "kept").length} of ${scores.capabilities.length} capabilities over ${scores.runs} runs; wrote ${options.out}`);
    });
  addRunDirectoryArgument(analyze.command("report").description("print (and write to analysis/report.md) the markdown report of a run's analysis"))
    .option("--labeler <labeler>", "which analysis: llm (RUN/analysis) or reference (RUN/analysis/reference)", "llm")
    .option("--dir <dir>", "an analysis directory to report instead")
    .action((runDirectory: string, options: { labeler: string; dir?: string }) => {
      write(runReportCommand(runDirectory, options));
    });
}
