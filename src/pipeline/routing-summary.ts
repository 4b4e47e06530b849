/** The arithmetic of routing results: accuracy against the tasks' families, and how many tasks each option got. */
import type { RoutingFile } from "../run/routing-file.js";

/** One routed evaluation task whose family is known: the task's family and that of the option it was routed to. */
export interface JudgedRoute {
  taskFamily: string;
  /** The chosen option's environment family; undefined for "none of these" or an environment without a family. */
  chosenFamily: string | undefined;
}

/** Share of judged tasks routed to an option of their own family; undefined when no task could be judged. */
export function routingAccuracy(judged: readonly JudgedRoute[]): RoutingFile["accuracy"] {
  if (judged.length === 0) return undefined;
  const correct = judged.filter((route) => route.chosenFamily === route.taskFamily).length;
  return { tasks: judged.length, correct, accuracy: correct / judged.length, note: "evaluation tasks whose family matches the chosen capability environment's family" };
}

/** Tasks routed to each option, in the options' order ("base (none of these)" for the option without a capability). */
export function routingDistribution(file: { options: readonly { label: string; capability: string | null }[]; decisions: readonly { label: string }[] }): { option: string; label: string; tasks: number }[] {
  return file.options.map((option) => ({
    option: option.capability ?? "base (none of these)",
    label: option.label,
    tasks: file.decisions.filter((decision) => decision.label === option.label).length,
  }));
}
