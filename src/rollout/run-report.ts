/** A run's results per environment and overall: pass rate, pass^k, mean reward, terminations, tokens and cost. */
import type { EpisodeRecord } from "../store/trajectory-store.js";

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
}

export interface RunReport {
  environments: EnvironmentReport[];
  overall: { tasks: number; finished: number; passed: number; passRate: number };
}

function binomial(n: number, k: number): number {
  if (k < 0 || k > n) return 0;
  let result = 1;
  for (let index = 1; index <= k; index++) result = (result * (n - k + index)) / index;
  return result;
}

/** Builds the report from finished episodes (others are ignored). */
export function buildRunReport(episodes: readonly EpisodeRecord[]): RunReport {
  const byEnvironment = new Map<string, EpisodeRecord[]>();
  for (const episode of episodes) {
    if (episode.status !== "finished") continue;
    const list = byEnvironment.get(episode.environment) ?? [];
    list.push(episode);
    byEnvironment.set(episode.environment, list);
  }
  const environments = [...byEnvironment.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([environment, list]) => {
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
    const maxTrials = Math.max(...[...byTask.values()].map((results) => results.length));
    const passHatK: Record<number, number> = {};
    for (let k = 1; k <= maxTrials; k++) {
      const eligible = [...byTask.values()].filter((results) => results.length >= k);
      const total = eligible.reduce((sum, results) => sum + binomial(results.filter(Boolean).length, k) / binomial(results.length, k), 0);
      passHatK[k] = total / eligible.length;
    }
    const passed = list.filter((episode) => episode.success === true).length;
    return {
      environment,
      tasks: byTask.size,
      finished: list.length,
      passed,
      passRate: passed / list.length,
      meanReward: list.reduce((sum, episode) => sum + (episode.reward ?? 0), 0) / list.length,
      passHatK,
      terminations,
      promptTokens,
      completionTokens,
      cost,
    };
  });
  const finished = environments.reduce((sum, report) => sum + report.finished, 0);
  const passed = environments.reduce((sum, report) => sum + report.passed, 0);
  return {
    environments,
    overall: { tasks: environments.reduce((sum, report) => sum + report.tasks, 0), finished, passed, passRate: finished === 0 ? 0 : passed / finished },
  };
}

/** The report as a plain-text table. */
export function formatRunReport(report: RunReport): string {
  const lines = ["environment      | tasks | episodes | passed | pass rate | mean reward | pass^k                 | terminations"];
  for (const row of report.environments) {
    const passHat = Object.entries(row.passHatK).map(([k, value]) => `^${k} ${value.toFixed(3)}`).join(" ");
    const terminations = Object.entries(row.terminations).map(([name, count]) => `${name} ${count}`).join(", ");
    lines.push(
      `${row.environment.padEnd(16)} | ${String(row.tasks).padStart(5)} | ${String(row.finished).padStart(8)} | ${String(row.passed).padStart(6)} | ${row.passRate.toFixed(3).padStart(9)} | ${row.meanReward.toFixed(3).padStart(11)} | ${passHat.padEnd(22)} | ${terminations}`,
    );
  }
  const overall = report.overall;
  lines.push(`${"overall".padEnd(16)} | ${String(overall.tasks).padStart(5)} | ${String(overall.finished).padStart(8)} | ${String(overall.passed).padStart(6)} | ${overall.passRate.toFixed(3).padStart(9)} |`);
  const tokenLines = report.environments.map((row) => `${row.environment}: ${row.promptTokens} prompt / ${row.completionTokens} completion tokens recorded${row.cost === null ? "" : `, cost ${row.cost.toFixed(4)}`}`);
  return [...lines, ...tokenLines].join("\n");
}
