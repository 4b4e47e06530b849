/**
 * A run's results per environment and overall: pass rate, pass^k, mean reward, terminations, tokens and cost over the
 * finished episodes; per task, the terminations and the episodes that failed (errors outside the conversation, such as
 * an endpoint failure, which the next run redoes) or never finished; and the error texts, grouped.
 */
import type { EpisodeRecord } from "../store/trajectory-store.js";

/** One task's episodes by outcome. */
export interface TaskReport {
  taskId: string;
  /** Finished episodes. */
  finished: number;
  passed: number;
  /** Episodes stored as failed: an error outside the conversation (an endpoint failure, the environment, grading). */
  failed: number;
  /** Episodes planned or started but never completed (pending, or running when the run was stopped). */
  unfinished: number;
  /** Terminations of the finished episodes. */
  terminations: Record<string, number>;
}

/** Episodes that ended with the same error: failed ones, or finished ones that ended in agent_error / user_error. */
export interface ErrorGroup {
  /** `failed`, or the termination of a finished episode (`agent_error`, `user_error`). */
  kind: string;
  /** The error's first line, shortened to `ERROR_TEXT_LENGTH` characters. */
  error: string;
  count: number;
  /** `taskId#trial` of each episode, in the order they were stored. */
  episodes: string[];
}

/** Longest error text kept in a report. */
const ERROR_TEXT_LENGTH = 240;

export interface EnvironmentReport {
  environment: string;
  tasks: number;
  finished: number;
  passed: number;
  passRate: number;
  meanReward: number;
  /** τ²-bench's pass^k: mean over tasks with ≥ k finished trials of C(successes, k) / C(trials, k). */
  passHatK: Record<number, number>;
  terminations: Record<string, number>;
  /** Policy tokens: the server's usage counts when the runner recorded them, else the recorded token ids. */
  promptTokens: number;
  completionTokens: number;
  /** Sum of recorded agent + user costs (τ²-bench imports carry them), or null when none is known. */
  cost: number | null;
  /** Episodes stored as failed (errors, not graded; the next run redoes them). */
  failed: number;
  /** Episodes pending or running. */
  unfinished: number;
  /** Every task with an episode in the store, in task-id order (numbers by value). */
  byTask: TaskReport[];
  /** Error texts of failed episodes and of finished agent_error / user_error ones, most frequent first. */
  errors: ErrorGroup[];
}

export interface RunReport {
  environments: EnvironmentReport[];
  overall: { tasks: number; finished: number; passed: number; passRate: number; failed: number; unfinished: number };
}

function binomial(n: number, k: number): number {
  if (k < 0 || k > n) return 0;
  let result = 1;
  for (let index = 1; index <= k; index++) result = (result * (n - k + index)) / index;
  return result;
}

/** An error text cut to its first line (a stored stack loses its frames), whitespace collapsed, at most `length` characters. */
export function shortenError(text: string, length = ERROR_TEXT_LENGTH): string {
  const withoutStack = text.split(/\n\s+at /)[0]!;
  const line = withoutStack.replace(/\s+/g, " ").trim();
  return line.length <= length ? line : `${line.slice(0, length - 1)}…`;
}

const byTaskId = (a: string, b: string) => a.localeCompare(b, "en", { numeric: true });

/** Per task: outcomes and terminations. */
function taskReports(episodes: readonly EpisodeRecord[]): TaskReport[] {
  const tasks = new Map<string, TaskReport>();
  for (const episode of episodes) {
    let task = tasks.get(episode.taskId);
    if (task === undefined) {
      task = { taskId: episode.taskId, finished: 0, passed: 0, failed: 0, unfinished: 0, terminations: {} };
      tasks.set(episode.taskId, task);
    }
    if (episode.status === "finished") {
      task.finished += 1;
      if (episode.success === true) task.passed += 1;
      const termination = episode.termination ?? "unknown";
      task.terminations[termination] = (task.terminations[termination] ?? 0) + 1;
    } else if (episode.status === "failed") task.failed += 1;
    else task.unfinished += 1;
  }
  return [...tasks.values()].sort((a, b) => byTaskId(a.taskId, b.taskId));
}

/** The error of an episode: a failed one's stored error, a finished one's agent_error / user_error reason. */
function episodeError(episode: EpisodeRecord): { kind: string; error: string } | undefined {
  if (episode.status === "failed") return { kind: "failed", error: shortenError(episode.error ?? "(no error recorded)") };
  if (episode.status !== "finished") return undefined;
  const reason = episode.metadata?.error;
  if (typeof reason === "string") return { kind: episode.termination ?? "unknown", error: shortenError(reason) };
  if (episode.termination === "agent_error" || episode.termination === "user_error") return { kind: episode.termination, error: "(no error recorded)" };
  return undefined;
}

function errorGroups(episodes: readonly EpisodeRecord[]): ErrorGroup[] {
  const groups = new Map<string, ErrorGroup>();
  for (const episode of episodes) {
    const found = episodeError(episode);
    if (found === undefined) continue;
    const key = `${found.kind}\u0000${found.error}`;
    const group = groups.get(key) ?? { ...found, count: 0, episodes: [] };
    group.count += 1;
    group.episodes.push(`${episode.taskId}#${episode.trial}`);
    groups.set(key, group);
  }
  // Failed episodes first (they are what a rerun redoes), then by count.
  return [...groups.values()].sort((a, b) => Number(b.kind === "failed") - Number(a.kind === "failed") || b.count - a.count);
}

/**
 * Builds the report: the statistics over finished episodes; failed and unfinished episodes are counted apart (per
 * environment and task) and never as failures, and the error texts grouped.
 */
export function buildRunReport(episodes: readonly EpisodeRecord[]): RunReport {
  const byEnvironment = new Map<string, EpisodeRecord[]>();
  for (const episode of episodes) {
    const list = byEnvironment.get(episode.environment) ?? [];
    list.push(episode);
    byEnvironment.set(episode.environment, list);
  }
  const environments = [...byEnvironment.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([environment, all]): EnvironmentReport => {
    const list = all.filter((episode) => episode.status === "finished");
    const byTask = new Map<string, boolean[]>();
    const terminations: Record<string, number> = {};
    let promptTokens = 0;
    let completionTokens = 0;
    let cost: number | null = null;
    for (const episode of list) {
      byTask.set(episode.taskId, [...(byTask.get(episode.taskId) ?? []), episode.success === true]);
      const termination = episode.termination ?? "unknown";
      terminations[termination] = (terminations[termination] ?? 0) + 1;
      const usage = episode.metadata?.policyUsage as { promptTokens?: unknown; completionTokens?: unknown } | undefined;
      if (typeof usage?.promptTokens === "number" && typeof usage.completionTokens === "number") {
        // The server's own count, kept by the runner (it covers servers that return no token ids).
        promptTokens += usage.promptTokens;
        completionTokens += usage.completionTokens;
      } else {
        for (const message of episode.messages ?? []) {
          if (message.role !== "assistant" || message.tokens === undefined) continue;
          promptTokens += message.tokens.promptTokenIds.length;
          completionTokens += message.tokens.completionTokenIds.length;
        }
      }
      for (const key of ["agent_cost", "user_cost"]) {
        const value = episode.extra?.[key];
        if (typeof value === "number") cost = (cost ?? 0) + value;
      }
    }
    const maxTrials = Math.max(0, ...[...byTask.values()].map((results) => results.length));
    const passHatK: Record<number, number> = {};
    for (let k = 1; k <= maxTrials; k++) {
      const eligible = [...byTask.values()].filter((results) => results.length >= k);
      const total = eligible.reduce((sum, results) => sum + binomial(results.filter(Boolean).length, k) / binomial(results.length, k), 0);
      passHatK[k] = total / eligible.length;
    }
    const passed = list.filter((episode) => episode.success === true).length;
    const failed = all.filter((episode) => episode.status === "failed").length;
    return {
      environment,
      tasks: byTask.size,
      finished: list.length,
      passed,
      passRate: list.length === 0 ? 0 : passed / list.length,
      meanReward: list.length === 0 ? 0 : list.reduce((sum, episode) => sum + (episode.reward ?? 0), 0) / list.length,
      passHatK,
      terminations,
      promptTokens,
      completionTokens,
      cost,
      failed,
      unfinished: all.length - list.length - failed,
      byTask: taskReports(all),
      errors: errorGroups(all),
    };
  });
  const total = (pick: (report: EnvironmentReport) => number) => environments.reduce((sum, report) => sum + pick(report), 0);
  const finished = total((report) => report.finished);
  const passed = total((report) => report.passed);
  return {
    environments,
    overall: {
      tasks: total((report) => report.tasks),
      finished,
      passed,
      passRate: finished === 0 ? 0 : passed / finished,
      failed: total((report) => report.failed),
      unfinished: total((report) => report.unfinished),
    },
  };
}

/** Episode keys listed in an error line before the rest are counted. */
const LISTED_EPISODES = 10;

function listEpisodes(episodes: readonly string[]): string {
  const shown = episodes.slice(0, LISTED_EPISODES).join(" ");
  return episodes.length > LISTED_EPISODES ? `${shown} … (+${episodes.length - LISTED_EPISODES} more)` : shown;
}

function formatCounts(counts: Record<string, number>): string {
  return Object.entries(counts).map(([name, count]) => `${name} ${count}`).join(", ");
}

/** Per task: finished, passed, failed and unfinished episodes and the terminations. */
function formatTaskTable(report: RunReport): string {
  const taskWidth = Math.max(4, ...report.environments.flatMap((row) => row.byTask.map((task) => task.taskId.length)));
  const lines = [`${"environment".padEnd(16)} | ${"task".padEnd(taskWidth)} | finished | passed | failed | unfinished | terminations`];
  for (const row of report.environments) {
    for (const task of row.byTask) {
      lines.push(
        `${row.environment.padEnd(16)} | ${task.taskId.padEnd(taskWidth)} | ${String(task.finished).padStart(8)} | ${String(task.passed).padStart(6)} | ${String(task.failed).padStart(6)} | ${String(task.unfinished).padStart(10)} | ${formatCounts(task.terminations)}`,
      );
    }
  }
  return lines.join("\n");
}

/** The error groups, one line each: environment, kind × count, the error text, the episodes (`task#trial`). */
function formatErrors(report: RunReport): string {
  const lines = report.environments.flatMap((row) => row.errors.map((group) => `${row.environment} | ${group.kind} × ${group.count} | ${group.error} | ${listEpisodes(group.episodes)}`));
  return lines.length === 0 ? "errors: none" : ["errors (failed: not graded, redone by the next run; agent_error / user_error: finished, scored 0):", ...lines].join("\n");
}

/** The report as plain text: the summary table, tokens, failed / unfinished counts, the task table and the errors. */
export function formatRunReport(report: RunReport): string {
  const lines = ["environment      | tasks | episodes | passed | pass rate | mean reward | pass^k                 | terminations"];
  for (const row of report.environments) {
    const passHat = Object.entries(row.passHatK).map(([k, value]) => `^${k} ${value.toFixed(3)}`).join(" ");
    lines.push(
      `${row.environment.padEnd(16)} | ${String(row.tasks).padStart(5)} | ${String(row.finished).padStart(8)} | ${String(row.passed).padStart(6)} | ${row.passRate.toFixed(3).padStart(9)} | ${row.meanReward.toFixed(3).padStart(11)} | ${passHat.padEnd(22)} | ${formatCounts(row.terminations)}`,
    );
  }
  const overall = report.overall;
  lines.push(`${"overall".padEnd(16)} | ${String(overall.tasks).padStart(5)} | ${String(overall.finished).padStart(8)} | ${String(overall.passed).padStart(6)} | ${overall.passRate.toFixed(3).padStart(9)} |`);
  const tokenLines = report.environments.map((row) => `${row.environment}: ${row.promptTokens} prompt / ${row.completionTokens} completion tokens recorded${row.cost === null ? "" : `, cost ${row.cost.toFixed(4)}`}`);
  const notDone = report.environments
    .filter((row) => row.failed > 0 || row.unfinished > 0)
    .map((row) => `${row.environment}: ${row.failed} failed (errors, not graded; the next run redoes them), ${row.unfinished} unfinished`);
  return [...lines, ...tokenLines, ...notDone, "", formatTaskTable(report), "", formatErrors(report)].join("\n");
}
