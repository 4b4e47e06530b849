/**
 * `trace rollout --env toolsandbox`: the agent on ToolSandbox scenarios with ToolSandbox's LLM user, into a run
 * directory's store (resumable), each episode graded by ToolSandbox's evaluation; and `trace toolsandbox report`:
 * ToolSandbox's per-category figures of such a run, optionally written as its `result_summary.json`.
 */
import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { formatCategoryComparison, formatCategorySummary, toolSandboxCategorySummary, toolSandboxResults, type CategoryFigures, type ToolSandboxResult } from "../envs/toolsandbox/category-report.js";
import { createToolSandboxEnvironment, TOOLSANDBOX_ENVIRONMENT_NAME } from "../envs/toolsandbox/environment.js";
import { loadToolSandboxExport } from "../envs/toolsandbox/load-export.js";
import { resultSummary } from "../envs/toolsandbox/results-export.js";
import { loadTimeDependence } from "../envs/toolsandbox/time-rebase.js";
import { createToolSandboxUser } from "../envs/toolsandbox/user-simulator.js";
import { createChatClient } from "../models/chat-client.js";
import { createProgressPrinter, runRollouts, type RolloutSummary } from "../rollout/rollout-runner.js";
import { checkOutputFilePath } from "../run/path-checks.js";
import { baseEvaluationEnvironment } from "../run/evaluation-results.js";
import { openRunDirectory } from "../run/run-directory.js";
import { openTrajectoryStore, type EpisodeRecord } from "../store/trajectory-store.js";
import { endpointOption } from "./endpoint-options.js";
import { integerOption } from "./integer-option.js";
import { UsageError } from "./usage-error.js";

/** The options `trace rollout` passes on for `--env toolsandbox`. */
export interface ToolSandboxRolloutOptions {
  dataDir: string;
  agentUrl: string;
  agentModel: string;
  agentApiKey?: string;
  userUrl?: string;
  userModel?: string;
  userApiKey?: string;
  trials: string;
  concurrency: string;
  temperature?: string;
  maxSteps?: string;
  seed: string;
  tasks?: string;
  augmentations?: string;
  /** POSIX seconds of the declared "now" (default: the export's, 2026-11-26 15:00 UTC). */
  now?: string;
  /** The declared local time zone as hours from UTC (default: the export's, 0). */
  utcOffset?: string;
  runDir: string;
  json?: boolean;
}

function numberOption(name: string, text: string): number {
  const value = Number(text);
  if (text.trim() === "" || !Number.isFinite(value)) throw new UsageError(`${name}: ${JSON.stringify(text)} is not a number`);
  return value;
}

const list = (text: string | undefined) => (text === undefined ? undefined : text.split(",").map((item) => item.trim()).filter((item) => item !== ""));

/** Runs the rollout; `trace show RUN` and `trace toolsandbox report RUN` read the result. */
export async function runToolSandboxRollout(options: ToolSandboxRolloutOptions, write: (line: string) => void, signal?: AbortSignal): Promise<RolloutSummary> {
  const run = openRunDirectory(options.runDir);
  run.checkPath();
  const agent = endpointOption(options, "agent")!;
  const user = endpointOption(options, "user", agent)!;
  const data = loadToolSandboxExport(options.dataDir);
  const scenarios = list(options.tasks);
  const augmentations = list(options.augmentations);
  const clock = {
    now: options.now === undefined ? data.meta.frozen_now_posix : numberOption("--now", options.now),
    utcOffsetHours: options.utcOffset === undefined ? data.meta.tz_offset_hours : numberOption("--utc-offset", options.utcOffset),
  };
  const timeDependence = options.now === undefined && options.utcOffset === undefined ? undefined : loadTimeDependence(options.dataDir);
  const environment = createToolSandboxEnvironment(data, { clock, ...(timeDependence === undefined ? {} : { timeDependence }), ...(scenarios === undefined ? {} : { scenarios }), ...(augmentations === undefined ? {} : { augmentations }) });
  const tasks = environment.tasks();
  if (tasks.length === 0) throw new UsageError("no ToolSandbox scenario matches --tasks / --augmentations");
  const temperature = options.temperature === undefined ? null : numberOption("--temperature", options.temperature);
  const config = {
    env: environment.name,
    dataDir: path.resolve(options.dataDir),
    clock,
    agent: { url: agent.url, model: agent.model, temperature },
    user: { kind: "toolsandbox-llm", url: user.url, model: user.model, temperature: 0 },
    trials: integerOption("--trials", options.trials, 1),
    concurrency: integerOption("--concurrency", options.concurrency, 1),
    maxSteps: options.maxSteps === undefined ? environment.rules.maxSteps : integerOption("--max-steps", options.maxSteps, 1),
    maxErrors: environment.rules.maxErrors,
    seed: integerOption("--seed", options.seed, 0),
    tasks: tasks.map((task) => task.id),
  };
  run.create();
  writeFileSync(run.configFile, JSON.stringify(config, null, 2) + "\n");
  const policy = createChatClient({ baseUrl: agent.url, model: agent.model, maxConcurrency: config.concurrency, apiKey: agent.apiKey });
  const userClient = createChatClient({ baseUrl: user.url, model: user.model, maxConcurrency: config.concurrency, apiKey: user.apiKey });
  const printer = createProgressPrinter(process.stderr);
  const store = openTrajectoryStore(path.join(options.runDir, "store.sqlite"));
  let summary: RolloutSummary;
  try {
    summary = await runRollouts({
      environment,
      tasks,
      trials: config.trials,
      concurrency: config.concurrency,
      store,
      policy,
      makeUser: (task) => createToolSandboxUser({ client: userClient, scenario: environment.scenario(task), sampling: { temperature: config.user.temperature } }),
      sampling: temperature === null ? {} : { temperature },
      baseSeed: config.seed,
      maxSteps: config.maxSteps,
      maxErrors: config.maxErrors,
      metadata: { agentModel: config.agent.model, userModel: config.user.model, temperature },
      onProgress: (progress) => printer.update(progress),
      ...(signal === undefined ? {} : { signal }),
    });
  } finally {
    store.close();
  }
  printer.done();
  write(`${environment.name}: ${summary.total} episodes: ${summary.finished} finished, ${summary.skipped} skipped (already done), ${summary.failed} failed; perfect ${summary.passRate === null ? "-" : `${(100 * summary.passRate).toFixed(1)}%`}`);
  if (options.json) write(JSON.stringify(summary));
  return summary;
}

/**
 * `trace toolsandbox report RUN --evaluation`: the evaluate stage's episodes (`eval/episodes.sqlite`) of a `trace run` on
 * a ToolSandbox target, the base's and the routed agent's side by side per category; `--json` ends with both summaries.
 */
export function runToolSandboxEvaluationReport(runDir: string, options: { json?: boolean }, write: (line: string) => void): { base: Record<string, CategoryFigures>; trace: Record<string, CategoryFigures> } {
  const file = openRunDirectory(runDir).evaluationStoreFile;
  if (!existsSync(file)) throw new UsageError(`${runDir} has no evaluation yet (${file} is written by trace run's evaluate stage)`);
  const store = openTrajectoryStore(file);
  let episodes: EpisodeRecord[];
  try {
    episodes = store.listEpisodes({ status: "finished" });
  } finally {
    store.close();
  }
  const base = toolSandboxResults(episodes, baseEvaluationEnvironment(TOOLSANDBOX_ENVIRONMENT_NAME));
  const trace = toolSandboxResults(episodes, TOOLSANDBOX_ENVIRONMENT_NAME);
  if (base.length === 0 || trace.length === 0) throw new UsageError(`${runDir}: the evaluation holds no finished ToolSandbox episodes of both the base and TRACE`);
  const summaries = { base: toolSandboxCategorySummary(base), trace: toolSandboxCategorySummary(trace) };
  write(formatCategoryComparison(summaries.base, summaries.trace));
  if (options.json) write(JSON.stringify(summaries));
  return summaries;
}

/** `trace toolsandbox report RUN`: ToolSandbox's category figures of a run's finished episodes. */
export function runToolSandboxReport(runDir: string, options: { out?: string; json?: boolean }, write: (line: string) => void): Record<string, CategoryFigures> {
  if (options.out !== undefined) checkOutputFilePath(options.out, "--out");
  const store = openTrajectoryStore(path.join(runDir, "store.sqlite"));
  let results: ToolSandboxResult[];
  try {
    results = toolSandboxResults(store.listEpisodes({ environment: TOOLSANDBOX_ENVIRONMENT_NAME, status: "finished" }));
  } finally {
    store.close();
  }
  if (results.length === 0) throw new UsageError(`${runDir} has no finished toolsandbox episodes`);
  const summary = toolSandboxCategorySummary(results);
  write(formatCategorySummary(summary));
  if (options.out !== undefined) writeFileSync(options.out, JSON.stringify(resultSummary(results), null, 4) + "\n");
  if (options.json) write(JSON.stringify(summary));
  return summary;
}
