/**
 * The arithmetic of routing results: accuracy against the tasks' families, how many tasks each option got, and how
 * the tasks routed to each option fared with the base and with the routed agent.
 */
import type { PassCount } from "../run/evaluation-results.js";
import type { RoutingFile } from "../run/routing-file.js";

/** One routed evaluation task whose family is known: the task's family and those of the option it was routed to. */
export interface JudgedRoute {
  taskFamily: string;
  /**
   * The environment families whose capability the task needs (a multi-part task needs several); default
   * `[taskFamily]`. The route is right when the chosen option's family is one of them.
   */
  needs?: readonly string[];
  /**
   * The families the chosen option's environment generates (one, or several for a multi-part practice world); empty
   * or undefined for "none of these" or an environment without families.
   */
  chosenFamilies: readonly string[] | undefined;
  /** The task went to the merged adapters (multi-part requests): right when the task needs two or more families. */
  chosenMerged?: boolean;
}

/**
 * Share of judged tasks routed to an option whose family the task needs, overall and per task family; undefined when
 * no task could be judged.
 */
export function routingAccuracy(judged: readonly JudgedRoute[]): RoutingFile["accuracy"] {
  if (judged.length === 0) return undefined;
  const right = (route: JudgedRoute) => (route.chosenMerged === true ? (route.needs ?? []).length >= 2 : (route.chosenFamilies ?? []).some((family) => (route.needs ?? [route.taskFamily]).includes(family)));
  let correct = 0;
  const byFamily: NonNullable<RoutingFile["accuracy"]>["byFamily"] = {};
  for (const route of judged) {
    const entry = (byFamily[route.taskFamily] ??= { tasks: 0, correct: 0, accuracy: 0 });
    entry.tasks += 1;
    if (right(route)) {
      entry.correct += 1;
      correct += 1;
    }
  }
  for (const entry of Object.values(byFamily)) entry.accuracy = entry.correct / entry.tasks;
  return {
    tasks: judged.length,
    correct,
    accuracy: correct / judged.length,
    byFamily,
    note: "evaluation tasks routed to a capability environment of a family the task needs (a multi-part task: any of its parts' families or multi-step completion, or the merged adapters)",
  };
}

/** Tasks routed to each option, in the options' order ("base (none of these)" for the option without a capability). */
export function routingDistribution(file: { options: readonly { label: string; capability: string | null }[]; decisions: readonly { label: string }[] }): { option: string; label: string; tasks: number }[] {
  return file.options.map((option) => ({
    option: option.capability ?? "base (none of these)",
    label: option.label,
    tasks: file.decisions.filter((decision) => decision.label === option.label).length,
  }));
}

/** An evaluation episode as `passesByRoute` reads it. */
export interface ScoredEpisode {
  taskId: string;
  status: string;
  success: boolean | null;
}

/**
 * Per option, the evaluation tasks routed to it (decisions of `environment` on the tasks `routed` has episodes of) and
 * their finished episodes passed by the base and by the routed agent: which adapter earns its keep on the target.
 */
export function passesByRoute(
  file: { options: readonly { label: string; capability: string | null }[]; decisions: readonly { environment: string; taskId: string; label: string }[] },
  environment: string,
  routed: readonly ScoredEpisode[],
  base: readonly ScoredEpisode[],
): { option: string; label: string; tasks: number; base: PassCount; trace: PassCount }[] {
  const evaluated = new Set(routed.map((episode) => episode.taskId));
  const labelOf = new Map(file.decisions.filter((decision) => decision.environment === environment && evaluated.has(decision.taskId)).map((decision) => [decision.taskId, decision.label]));
  const count = (episodes: readonly ScoredEpisode[], label: string): PassCount => {
    const finished = episodes.filter((episode) => episode.status === "finished" && labelOf.get(episode.taskId) === label);
    return { passed: finished.filter((episode) => episode.success === true).length, total: finished.length };
  };
  return file.options.map((option) => ({
    option: option.capability ?? "base (none of these)",
    label: option.label,
    tasks: [...labelOf.values()].filter((label) => label === option.label).length,
    base: count(base, option.label),
    trace: count(routed, option.label),
  }));
}
