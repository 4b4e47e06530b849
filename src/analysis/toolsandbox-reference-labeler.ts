/**
 * The ToolSandbox reference labeler (no LLM): labels a ToolSandbox conversation on a fixed dictionary by reading
 * ToolSandbox's own evaluation of it against the scenario's milestones and minefields. Each milestone is one kind of
 * requirement, read from its declared snapshot constraints: a change to the world's databases, a tool call (the
 * execution environment's result of it in the message log), or a reply to the user. A capability is LACKING when a
 * milestone of its kind scores below 1 under ToolSandbox's best DAG-consistent matching, PRESENT when every such
 * milestone scores 1, and NA when the scenario has none.
 */
import type { ToolSandboxEvaluation } from "../envs/toolsandbox/evaluate.js";
import type { MilestoneData, ScenarioData } from "../envs/toolsandbox/export-schema.js";
import type { CapabilityLabel } from "../store/trajectory-store.js";
import type { CandidateCapability } from "./candidates-file.js";

export const TOOLSANDBOX_REFERENCE_CAPABILITIES = [
  {
    name: "resolve_state_dependencies",
    description:
      "Some tools work only when a device setting is on (cellular, wifi, location service): the agent must notice the failure or the dependency and change that setting before the call that needs it. " +
      "LACKING when a setting the task requires as a step before another action does not end up as required; PRESENT when every such setting does; NA when the task has no such step.",
  },
  {
    name: "reach_required_world_state",
    description:
      "The task requires changes to the user's data (contacts, messages, reminders, settings), each with exact values (canonical phone numbers, timestamps, names). " +
      "LACKING when a required change is missing or ends up with other values; PRESENT when every required change is exactly made; NA when the task requires no change.",
  },
  {
    name: "make_required_tool_calls",
    description:
      "The task requires calling particular tools with particular arguments (searches, conversions, lookups) to obtain what the user asked for. " +
      "LACKING when a required call is missing or made with other arguments; PRESENT when every required call is made as required; NA when the task requires none.",
  },
  {
    name: "report_results_to_user",
    description:
      "The agent must tell the user the outcome or the information obtained, in the words and figures the task expects. " +
      "LACKING when a required reply is missing or says something else; PRESENT when every required reply is given; NA when the task requires none.",
  },
  {
    name: "avoid_forbidden_actions",
    description:
      "Some requests lack the information a tool needs, or must not be acted on: the agent must ask or decline rather than act. " +
      "LACKING when the agent takes an action the task forbids; PRESENT when it takes none; NA when the task forbids nothing.",
  },
] as const satisfies readonly CandidateCapability[];

export type ToolSandboxReferenceCapabilityName = (typeof TOOLSANDBOX_REFERENCE_CAPABILITIES)[number]["name"];

/** What a milestone requires, from its declared (not automatic guardrail) constraints. */
export type MilestoneKind = "state" | "call" | "reply";

const WORLD_DATABASES = new Set(["SETTING", "CONTACT", "MESSAGING", "REMINDER"]);

/** A milestone's kind: a world database change, else a tool's result in the message log, else a reply to the user; undefined when it declares none of these. */
export function milestoneKind(milestone: MilestoneData): MilestoneKind | undefined {
  const declared = milestone.snapshot_constraints.filter((constraint) => constraint.origin === "declared");
  if (declared.some((constraint) => WORLD_DATABASES.has(constraint.database_namespace))) return "state";
  const messages = declared.filter((constraint) => constraint.database_namespace === "SANDBOX").flatMap((constraint) => constraint.target_dataframe?.rows ?? []);
  if (messages.some((row) => row.sender === "EXECUTION_ENVIRONMENT")) return "call";
  if (messages.some((row) => row.sender === "AGENT" && row.recipient === "USER")) return "reply";
  return undefined;
}

/**
 * The milestones that are a state dependency: a declared SETTING change that the DAG puts before a change or a call
 * (not only before a reply: turning cellular off and saying so is the task itself, not a dependency).
 */
export function dependencyMilestones(scenario: ScenarioData): Set<number> {
  const milestones = scenario.evaluation.milestones;
  const kinds = new Map(milestones.items.map((milestone) => [milestone.index, milestoneKind(milestone)]));
  const settings = new Set(
    milestones.items
      .filter((milestone) => milestone.snapshot_constraints.some((constraint) => constraint.origin === "declared" && constraint.database_namespace === "SETTING"))
      .map((milestone) => milestone.index),
  );
  return new Set(milestones.dag_edges.filter(([from, to]) => settings.has(from) && (kinds.get(to) === "state" || kinds.get(to) === "call")).map(([from]) => from));
}

/** LACKING when some listed milestone scores below 1, PRESENT when all score 1, NA when none is listed. */
function labelOf(indices: readonly number[], score: (index: number) => number): CapabilityLabel {
  if (indices.length === 0) return "NA";
  return indices.every((index) => score(index) >= 1) ? "PRESENT" : "LACKING";
}

/** The reference labels of one conversation of `scenario`, from ToolSandbox's evaluation of it. */
export function toolSandboxReferenceLabels(scenario: ScenarioData, evaluation: ToolSandboxEvaluation): Record<ToolSandboxReferenceCapabilityName, CapabilityLabel> {
  // An unmatched milestone (or a crashed evaluation, which maps none) scores 0.
  const score = (index: number) => evaluation.milestone_mapping[String(index)]?.[1] ?? 0;
  const dependencies = dependencyMilestones(scenario);
  const ofKind = (kind: MilestoneKind) => scenario.evaluation.milestones.items.filter((milestone) => !dependencies.has(milestone.index) && milestoneKind(milestone) === kind).map((milestone) => milestone.index);
  return {
    resolve_state_dependencies: labelOf([...dependencies], score),
    reach_required_world_state: labelOf(ofKind("state"), score),
    make_required_tool_calls: labelOf(ofKind("call"), score),
    report_results_to_user: labelOf(ofKind("reply"), score),
    avoid_forbidden_actions: scenario.evaluation.minefields.items.length === 0 ? "NA" : evaluation.minefield_similarity > 0 ? "LACKING" : "PRESENT",
  };
}
