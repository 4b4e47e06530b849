/**
 * The routing and evaluation view: the routing options and each task's route (`eval/routing.json`), accuracy where the
 * target's tasks name their capability, the evaluation's pass counts (`eval/results.json`; mean rewards where graded), and base vs TRACE reward
 * per evaluation task from `eval/episodes.sqlite`.
 */
import { existsSync } from "node:fs";
import type { TopLevelSpec } from "vega-lite";
import { z } from "zod";
import { baseEvaluationEnvironment, hasGradedReward, type EvaluationResults } from "../run/evaluation-results.js";
import { readJsonArtifact } from "../run/json-artifact.js";
import type { RunDirectory } from "../run/run-directory.js";
import type { RoutingFile } from "../run/routing-file.js";
import { baseVersusTraceSpec, routeDistributionSpec } from "./chart-specs.js";
import { checkRunDirectory, withExistingStore } from "./dashboard-run.js";

export interface TaskComparison {
  environment: string;
  taskId: string;
  base: number | null;
  trace: number | null;
}

export interface RoutingView {
  routing: RoutingFile | null;
  results: EvaluationResults | null;
  /** Whether some domain's reward is graded (ToolSandbox's similarity): the evaluation table then shows the mean rewards. */
  gradedReward: boolean;
  /** Tasks per routing option, in the options' order. */
  routes: { option: string; label: string; tasks: number }[];
  tasks: TaskComparison[];
  charts: { routes: TopLevelSpec | null; tasks: TopLevelSpec | null };
  notices: string[];
}

const passCountSchema = z.object({ passed: z.number(), total: z.number() });
const evaluationResultsSchema: z.ZodType<EvaluationResults> = z.looseObject({
  domains: z.array(
    z.looseObject({ domain: z.string(), base: passCountSchema, trace: passCountSchema, meanReward: z.object({ base: z.number(), trace: z.number() }).optional(), groups: z.record(z.string(), z.looseObject({ base: passCountSchema, trace: passCountSchema })).optional() }),
  ),
  overall: z.looseObject({ base: passCountSchema, trace: passCountSchema }),
  capabilities: z.array(z.looseObject({ capability: z.string(), seeds: z.array(z.number()), before: z.number(), after: z.number() })),
  routing: z.array(z.looseObject({ option: z.string(), label: z.string(), tasks: z.number() })),
});

/** Mean reward per task of one environment of the evaluation store. */
function meanRewards(episodes: readonly { taskId: string; reward: number | null }[]): Map<string, number> {
  const sums = new Map<string, { total: number; count: number }>();
  for (const episode of episodes) {
    const sum = sums.get(episode.taskId) ?? { total: 0, count: 0 };
    sums.set(episode.taskId, { total: sum.total + (episode.reward ?? 0), count: sum.count + 1 });
  }
  return new Map([...sums].map(([task, sum]) => [task, sum.total / sum.count]));
}

/** `eval/results.json`, or null before the evaluate stage. */
export function readEvaluationResults(run: RunDirectory): EvaluationResults | null {
  return existsSync(run.evaluationResultsFile) ? readJsonArtifact(run.evaluationResultsFile, evaluationResultsSchema) : null;
}

/** Reads routing, results and the evaluation episodes. */
export function readRoutingView(run: RunDirectory): RoutingView {
  checkRunDirectory(run);
  const notices: string[] = [];
  const routing = existsSync(run.routingFile) ? run.readRoutingFile() : null;
  if (routing === null) notices.push("no routing yet (eval/routing.json is written by the route stage)");
  const results = readEvaluationResults(run);
  if (results === null) notices.push("no evaluation yet (eval/results.json is written by the evaluate stage)");
  const routes = (routing?.options ?? []).map((option) => ({
    option: option.capability ?? "base (none of these)",
    label: option.label,
    tasks: routing!.decisions.filter((decision) => decision.label === option.label).length,
  }));
  const tasks = withExistingStore(run.evaluationStoreFile, [] as TaskComparison[], (store) =>
    (results?.domains ?? []).flatMap(({ domain }) => {
      const finished = (environment: string) => store.pageEpisodes({ environment, status: "finished" }).episodes;
      const trace = meanRewards(finished(domain));
      const base = meanRewards(finished(baseEvaluationEnvironment(domain)));
      return [...new Set([...base.keys(), ...trace.keys()])].map((taskId) => ({ environment: domain, taskId, base: base.get(taskId) ?? null, trace: trace.get(taskId) ?? null }));
    }),
  );
  const bars = tasks.flatMap((task) => [
    ...(task.base === null ? [] : [{ task: task.taskId, policy: "base", reward: task.base }]),
    ...(task.trace === null ? [] : [{ task: task.taskId, policy: "trace", reward: task.trace }]),
  ]);
  const gradedReward = (results?.domains ?? []).some(hasGradedReward);
  return {
    routing,
    results,
    gradedReward,
    routes,
    tasks,
    charts: { routes: routes.length === 0 ? null : routeDistributionSpec(routes), tasks: bars.length === 0 ? null : baseVersusTraceSpec(bars) },
    notices,
  };
}
