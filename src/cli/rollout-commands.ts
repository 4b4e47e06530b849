/** `trace rollout`, `trace import` and `trace export`: run policies in an environment into a run directory's store. */
import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import { DEFAULT_MAX_ERRORS } from "../envs/tau2/conversation-rules.js";
import { loadTau2Domain } from "../envs/tau2/domains.js";
import { createTau2Environment } from "../envs/tau2/environment.js";
import { checkTau2ResultsDomain, checkTau2SimulationTasks, readTau2Results, tau2RunInfo } from "../envs/tau2/results-file.js";
import type { Tau2Task } from "../envs/tau2/task-schema.js";
import { createChatClient } from "../models/chat-client.js";
import { createLlmUserSimulator, readUserSimulatorGuidelines } from "../rollout/llm-user-simulator.js";
import { createProgressPrinter, runRollouts, type RolloutSummary } from "../rollout/rollout-runner.js";
import { buildRunReport, type ErrorGroup } from "../rollout/run-report.js";
import { exportTau2Results, importTau2Results, storedTau2Tasks } from "../envs/tau2/results-exchange.js";
import { exportJsonl, exportTrainingJsonl } from "../store/jsonl-export.js";
import { checkOutputFilePath } from "../run/path-checks.js";
import { openRunDirectory } from "../run/run-directory.js";
import { openTrajectoryStore, type TrajectoryStore } from "../store/trajectory-store.js";
import { addEndpointOptions, endpointOption } from "./endpoint-options.js";
import { integerOption, numberOption } from "./integer-option.js";
import { addRunDirectoryArgument, addRunDirectoryOption } from "./run-directory-option.js";
import { readRunManifest, type RunManifest } from "./run-manifest.js";
import { UsageError } from "./usage-error.js";
import { runToolSandboxRollout } from "./toolsandbox-rollout.js";
import { TraceError } from "../spec/trace-error.js";

/** The TRACE paper's step limit. */
const PAPER_MAX_STEPS = 50;

export { UsageError } from "./usage-error.js";

export interface RolloutCommandOptions {
  env: string;
  dataDir: string;
  agentUrl: string;
  agentModel: string;
  agentApiKey?: string;
  userUrl?: string;
  userModel?: string;
  userApiKey?: string;
  userGuidelines?: string;
  trials: string;
  concurrency: string;
  temperature?: string;
  maxSteps: string;
  maxErrors?: string;
  seed: string;
  tasks?: string;
  augmentations?: string;
  now?: string;
  utcOffset?: string;
  runDir: string;
  json?: boolean;
}

/** The resolved configuration written to RUN_DIR/config.json (no API keys). */
export interface RolloutConfig {
  env: string;
  domain: string;
  dataDir: string;
  agent: { url: string; model: string; temperature: number | null };
  user: { kind: "llm"; url: string; model: string; guidelinesDir: string; temperature: number };
  trials: number;
  concurrency: number;
  maxSteps: number;
  maxErrors: number;
  seed: number;
  tasks: string[];
}

function domainOf(env: string): "airline" | "retail" {
  if (env === "tau2-airline") return "airline";
  if (env === "tau2-retail") return "retail";
  throw new UsageError(`unknown environment ${JSON.stringify(env)} (expected tau2-airline or tau2-retail)`);
}

function storeFile(runDir: string): string {
  return openRunDirectory(runDir).storeFile;
}

function withStore<T>(file: string, fn: (store: TrajectoryStore) => T): T {
  const store = openTrajectoryStore(file);
  try {
    return fn(store);
  } finally {
    store.close();
  }
}

function formatSummary(summary: RolloutSummary): string {
  const pass = summary.passRate === null ? "-" : `${(100 * summary.passRate).toFixed(1)}%`;
  return `${summary.total} episodes: ${summary.finished} finished, ${summary.skipped} skipped (already done), ${summary.failed} failed, ${summary.remaining} remaining; pass rate ${pass}`;
}

/** `trace rollout`: resolves the config, writes it, runs the episodes into RUN_DIR/store.sqlite. */
export async function runRolloutCommand(options: RolloutCommandOptions, write: (line: string) => void, signal?: AbortSignal): Promise<RolloutSummary> {
  if (options.env === "toolsandbox") return runToolSandboxRollout(options, write, signal);
  const domain = domainOf(options.env);
  const run = openRunDirectory(options.runDir);
  run.checkPath();
  const agent = endpointOption(options, "agent")!;
  const user = endpointOption(options, "user", agent)!;
  const data = loadTau2Domain(domain, options.dataDir);
  const environment = createTau2Environment(data);
  const requestedTasks = options.tasks === undefined ? undefined : options.tasks.split(",").map((id) => id.trim()).filter((id) => id !== "");
  const tasks = requestedTasks === undefined ? environment.tasks() : requestedTasks.map((id) => environment.task(id));
  const guidelinesDir = options.userGuidelines ?? path.join(path.dirname(path.resolve(options.dataDir)), "user_simulator");
  const guidelines = readUserSimulatorGuidelines(guidelinesDir);
  const temperature = options.temperature === undefined ? null : numberOption("--temperature", options.temperature, { minimum: 0 });
  const config: RolloutConfig = {
    env: environment.name,
    domain,
    dataDir: path.resolve(options.dataDir),
    agent: { url: agent.url, model: agent.model, temperature },
    user: { kind: "llm", url: user.url, model: user.model, guidelinesDir: path.resolve(guidelinesDir), temperature: 0 },
    trials: integerOption("--trials", options.trials, 1),
    concurrency: integerOption("--concurrency", options.concurrency, 1),
    maxSteps: integerOption("--max-steps", options.maxSteps, 1),
    maxErrors: options.maxErrors === undefined ? DEFAULT_MAX_ERRORS : integerOption("--max-errors", options.maxErrors, 1),
    seed: integerOption("--seed", options.seed, 0),
    tasks: tasks.map((task) => task.id),
  };
  run.create();
  writeFileSync(run.configFile, JSON.stringify(config, null, 2) + "\n");

  const policy = createChatClient({ baseUrl: agent.url, model: agent.model, maxConcurrency: config.concurrency, apiKey: agent.apiKey });
  const userClient = createChatClient({ baseUrl: user.url, model: user.model, maxConcurrency: config.concurrency, apiKey: user.apiKey });
  const printer = createProgressPrinter(process.stderr);
  let errors: ErrorGroup[] = [];
  const summary = await withStoreAsync(storeFile(options.runDir), async (store) => {
    const result = await runRollouts({
      environment,
      tasks,
      trials: config.trials,
      concurrency: config.concurrency,
      store,
      policy,
      makeUser: (task) => createLlmUserSimulator({ client: userClient, guidelines, scenario: task.userInstructions, sampling: { temperature: config.user.temperature } }),
      sampling: temperature === null ? {} : { temperature },
      baseSeed: config.seed,
      maxSteps: config.maxSteps,
      maxErrors: config.maxErrors,
      metadata: { agentModel: config.agent.model, userModel: config.user.model, temperature },
      onProgress: (progress) => printer.update(progress),
      ...(signal === undefined ? {} : { signal }),
    });
    if (result.failed > 0) errors = buildRunReport(store.listEpisodes({ environment: environment.name, status: "failed" })).environments[0]?.errors ?? [];
    return result;
  });
  printer.done();
  write(`${environment.name}: ${formatSummary(summary)}`);
  if (errors.length > 0) {
    const [first] = errors;
    process.stderr.write(
      `trace: ${summary.failed} episode${summary.failed === 1 ? "" : "s"} failed with errors (not graded; rerun the same command to redo them; trace show ${options.runDir} lists each): ${first!.error}${errors.length > 1 ? ` (and ${errors.length - 1} other error${errors.length === 2 ? "" : "s"})` : ""}\n`,
    );
  }
  if (summary.aborted) {
    process.stderr.write(`trace: interrupted; ${summary.remaining} episodes not done. Resume with the same command (finished episodes are kept in ${storeFile(options.runDir)}).\n`);
  }
  if (options.json) write(JSON.stringify(summary));
  return summary;
}

async function withStoreAsync<T>(file: string, fn: (store: TrajectoryStore) => Promise<T>): Promise<T> {
  const store = openTrajectoryStore(file);
  try {
    return await fn(store);
  } finally {
    store.close();
  }
}

/**
 * Refuses, before anything is written, a results file `trace import` would store wrongly: one of another domain than
 * `--env`'s, or with a simulation whose task is not among the file's tasks (nothing could grade or export it).
 */
function checkImportedResults(results: string, env: string): void {
  const loaded = readTau2Results(results);
  checkTau2ResultsDomain(results, loaded.file, domainOf(env), `--env ${env}`);
  checkTau2SimulationTasks(results, loaded.simulations, new Set(loaded.tasks.map((task) => task.id)), "the results file's tasks");
}

/** `trace import`: a τ²-bench results file into RUN_DIR/store.sqlite. */
function runImportCommand(results: string, options: { env: string; runDir: string; json?: boolean }, write: (line: string) => void): { imported: number; episodes: number; passed: number } {
  domainOf(options.env);
  const run = openRunDirectory(options.runDir);
  run.checkPath();
  checkImportedResults(results, options.env);
  run.create();
  const outcome = withStore(storeFile(options.runDir), (store) => {
    const imported = importTau2Results(store, results, options.env);
    const summary = store.summary({ environment: options.env });
    return { imported, episodes: summary.finished, passed: summary.passed };
  });
  write(`${options.env}: imported ${outcome.imported} simulations from ${results}; the store holds ${outcome.episodes} finished episodes, ${outcome.passed} passed`);
  if (options.json) write(JSON.stringify(outcome));
  return outcome;
}

/**
 * A τ²-bench results file names the task of every simulation, and τ²-bench's readers (`evaluate-trajs`, `view`) need
 * them; none of the places `trace export` takes tasks from had these. Carries the task ids and where it looked.
 */
export class ExportTasksNotFoundError extends TraceError {
  override readonly name = "ExportTasksNotFoundError";

  constructor(
    readonly runDirectory: string,
    readonly environment: string,
    readonly taskIds: readonly string[],
    readonly searched: readonly string[],
  ) {
    const shown = taskIds.slice(0, 10).map((id) => JSON.stringify(id)).join(", ");
    const ids = `${taskIds.length === 1 ? "task" : "tasks"} ${shown}${taskIds.length > 10 ? ` and ${taskIds.length - 10} more` : ""}`;
    super(`cannot export ${environment} of ${runDirectory} as a τ²-bench results file: no task for ${ids} (${searched.join("; ")}); pass --data-dir with the domain's directory (tasks.json, db.json, policy.md)`, { category: "data" });
  }
}

/**
 * The tasks (and policy) a τ² export embeds: from `--data-dir`, else the data directory the run's `config.json` names,
 * else the tasks kept with imported episodes; every exported task id must be found, or `ExportTasksNotFoundError`.
 */
function exportTasks(store: TrajectoryStore, options: { runDir: string; env: string; domain: string; dataDir?: string; config: RunManifest }): { tasks: Tau2Task[]; policy: string } {
  const ids = [...new Set(store.listEpisodes({ environment: options.env, status: "finished" }).map((record) => record.taskId))];
  const searched: string[] = [];
  let source: { description: string; tasks: ReadonlyMap<string, Tau2Task>; policy: string } | undefined;
  const dataDirectory = options.dataDir ?? options.config.dataDirectory;
  if (dataDirectory !== undefined) {
    const data = loadTau2Domain(options.domain, dataDirectory);
    source = { description: `${options.dataDir === undefined ? "config.json's data directory" : "--data-dir"} ${dataDirectory}`, tasks: new Map(data.tasks.map((task) => [task.id, task])), policy: data.policy };
  } else {
    searched.push("no --data-dir", options.config.missing ?? "config.json names no data directory");
    const stored = storedTau2Tasks(store, options.env);
    if (stored.size > 0) source = { description: "the tasks kept with the imported episodes", tasks: stored, policy: "" };
    else searched.push("the store keeps no tasks");
  }
  const missing = ids.filter((id) => source?.tasks.has(id) !== true);
  if (missing.length > 0) throw new ExportTasksNotFoundError(options.runDir, options.env, missing, source === undefined ? searched : [`${source.description} lacks them`]);
  const wanted = new Set(ids);
  return { tasks: [...(source?.tasks.values() ?? [])].filter((task) => wanted.has(task.id)), policy: source?.policy ?? "" };
}

/** `trace export --training ADAPTER`: GRPO's stored training episodes of one adapter as JSON Lines. */
function exportTrainingEpisodes(runDir: string, options: { adapter: string; format: string; out: string; env?: string; json?: boolean }, write: (line: string) => void): { exported: number } {
  if (options.format !== "jsonl") throw new UsageError(`training episodes export as jsonl only (not ${options.format})`);
  if (options.env !== undefined) throw new UsageError("pass --env or --training, not both");
  const file = storeFile(runDir);
  if (!existsSync(file)) throw new UsageError(`${runDir} has no store.sqlite (not a run directory)`);
  checkOutputFilePath(options.out, "--out");
  const exported = withStore(file, (store) => {
    if (store.training.page({ adapter: options.adapter, limit: 0 }).total === 0) {
      const held = [...new Set(store.training.iterations().map((row) => row.adapter))];
      throw new UsageError(`${runDir} has no training episodes of adapter ${JSON.stringify(options.adapter)} (adapters with training episodes: ${held.join(", ") || "none"})`);
    }
    return exportTrainingJsonl(store, options.out, { adapter: options.adapter });
  });
  write(`${options.adapter}: exported ${exported} training episodes as jsonl to ${options.out}`);
  if (options.json === true) write(JSON.stringify({ exported }));
  return { exported };
}

/** `trace export`: a run directory's episodes as a τ²-bench results file or JSON Lines. */
export function runExportCommand(runDir: string, options: { env?: string; training?: string; format: string; out: string; dataDir?: string; json?: boolean }, write: (line: string) => void): { exported: number } {
  if (options.format !== "tau2" && options.format !== "jsonl") throw new UsageError(`unknown export format ${JSON.stringify(options.format)} (expected tau2 or jsonl)`);
  if (options.training !== undefined) return exportTrainingEpisodes(runDir, { ...options, adapter: options.training }, write);
  if (options.env === undefined) throw new UsageError("export needs --env ENV (the run's episodes) or --training ADAPTER (GRPO's training episodes)");
  const env = options.env;
  // A τ²-bench results file is τ²'s; JSON Lines takes any environment the store holds (e.g. a user's own target).
  const domain = options.format === "tau2" ? domainOf(env) : undefined;
  const file = storeFile(runDir);
  if (!existsSync(file)) throw new UsageError(`${runDir} has no store.sqlite (not a run directory)`);
  checkOutputFilePath(options.out, "--out");
  let exported: number;
  if (domain === undefined) {
    exported = withStore(file, (store) => {
      if (store.listEpisodes({ environment: env }).length === 0) {
        const held = [...new Set(store.listEpisodes().map((record) => record.environment))];
        throw new UsageError(`${runDir} has no episodes of ${JSON.stringify(env)} (environments: ${held.join(", ") || "none"})`);
      }
      return exportJsonl(store, options.out, { environment: env });
    });
  } else {
    const config = readRunManifest(runDir, env, domain);
    exported = withStore(file, (store) => {
      const { tasks, policy } = exportTasks(store, { runDir, env: env, domain, config, ...(options.dataDir === undefined ? {} : { dataDir: options.dataDir }) });
      const info = tau2RunInfo({
        domain,
        policy,
        agent: config.agent ?? "trace",
        user: config.user ?? "trace",
        maxSteps: config.maxSteps ?? PAPER_MAX_STEPS,
        maxErrors: config.maxErrors ?? DEFAULT_MAX_ERRORS,
        numTrials: config.trials ?? 1,
        seed: config.seed ?? null,
      });
      return exportTau2Results(store, { environment: env, file: options.out, info, tasks });
    });
  }
  write(`${env}: exported ${exported} episodes as ${options.format} to ${options.out}`);
  if (options.json) write(JSON.stringify({ exported }));
  return { exported };
}

export function registerRolloutCommands(program: Command): void {
  const write = (line: string) => void process.stdout.write(line + "\n");
  const rollout = program
    .command("rollout")
    .description("run the agent on tasks × trials of an environment into RUN_DIR/store.sqlite (resumable: rerun the same command)")
    .requiredOption("--env <env>", "tau2-airline, tau2-retail or toolsandbox")
    .requiredOption("--data-dir <dir>", "the domain's directory (tasks.json, db.json, policy.md); for toolsandbox the one with scenarios.json.gz");
  addEndpointOptions(rollout, "agent", "the policy", { required: true });
  addEndpointOptions(rollout, "user", "the user simulator", { fallback: "the agent's" });
  addRunDirectoryOption(rollout)
    .option("--user-guidelines <dir>", "directory with simulation_guidelines.md (default: DATA_DIR/../user_simulator)")
    .option("--trials <n>", "trials per task", "1")
    .option("--concurrency <n>", "episodes in flight at once", "1")
    .option("--temperature <t>", "policy sampling temperature (default: the server's)")
    .option("--max-steps <n>", "step limit per episode (the paper's 50)", String(PAPER_MAX_STEPS))
    .option("--max-errors <n>", `tool-error limit per episode (default ${DEFAULT_MAX_ERRORS})`)
    .option("--seed <s>", "seed of episode 0; episode i gets seed + i", "0")
    .option("--tasks <ids>", "comma-separated task ids (default: all)")
    .option("--augmentations <names>", "toolsandbox: only these tool augmentations (none, 3_distraction_tools, …)")
    .option("--now <seconds>", "toolsandbox: the declared now, POSIX seconds (default: the export's)")
    .option("--utc-offset <hours>", "toolsandbox: the declared local time zone, hours from UTC (default: the export's)")
    .option("--json", "end with one JSON line: the summary")
    .action(async (options: RolloutCommandOptions) => {
      const controller = new AbortController();
      const onSigint = () => controller.abort();
      process.once("SIGINT", onSigint);
      try {
        const summary = await runRolloutCommand(options, write, controller.signal);
        if (summary.aborted) {
          // Abandoned requests may still be open; nothing is left to write, so leave now.
          process.exit(130);
        }
        if (summary.failed > 0) process.exitCode = 2;
      } finally {
        process.removeListener("SIGINT", onSigint);
      }
    });
  const importCommand = program
    .command("import")
    .description("import a τ²-bench results file into RUN_DIR/store.sqlite")
    .argument("<results>", "τ²-bench results JSON")
    .requiredOption("--env <env>", "tau2-airline or tau2-retail");
  addRunDirectoryOption(importCommand)
    .option("--json", "end with one JSON line {imported, episodes, passed}")
    .action((results: string, options: { env: string; runDir: string; json?: boolean }) => {
      runImportCommand(results, options, write);
    });
  addRunDirectoryArgument(program.command("export").description("export a run directory's finished episodes (tau2) or all episodes (jsonl)"))
    .option("--env <env>", "tau2-airline or tau2-retail; with jsonl, any environment the run holds")
    .option("--training <adapter>", "instead of --env: GRPO's training episodes of this adapter (jsonl; training.keepRollouts says which iterations are kept)")
    .requiredOption("--format <format>", "tau2 or jsonl")
    .requiredOption("--out <file>", "output file")
    .option("--data-dir <dir>", "domain directory for the tasks and policy embedded in a tau2 file (default: the one config.json names, else the tasks kept by trace import)")
    .option("--json", "end with one JSON line {exported}")
    .action((runDir: string, options: { env?: string; training?: string; format: string; out: string; dataDir?: string; json?: boolean }) => {
      runExportCommand(runDir, options, write);
    });
}
