/**
 * A gold-style conversation for a scenario, built from its milestones in a topological order of their DAG: each
 * tool-trace milestone becomes that call (arguments a reference trace supplies are extracted from the earlier call's
 * result, and `{placeholders}` of an answer filled the same way), each world-database milestone the tool that makes
 * that change (settings, contact, message and reminder additions, updates and removals), and each answer milestone
 * the agent saying it. The user opens with the scenario's message and ends with `end_conversation`.
 */
import type { AssistantMessage, Message, ToolCall } from "../../spec/message.js";
import type { Task } from "../../spec/task.js";
import { END_CONVERSATION_TOKEN } from "./conversation-replay.js";
import type { ToolSandboxEnvironment, ToolSandboxEpisode } from "./environment.js";
import { firstUserMessage } from "./environment.js";
import type { MilestoneData, Row, ScenarioData, SnapshotConstraintData } from "./export-schema.js";
import { PythonException, pythonFormat } from "./python-values.js";
import { toolTraceExtractor } from "./tool-trace-extractors.js";
import { fromTimestamp } from "./local-time.js";

/** A call the gold conversation makes: execution name and JSON arguments. */
export interface GoldCall {
  name: string;
  arguments: Record<string, unknown>;
}

/** Variations for mutation checks: leave one milestone's step out, or change the first call's first argument. */
export interface GoldOptions {
  skipMilestone?: number;
  mutateFirstArgument?: boolean;
  /** Extra calls made after the milestones' steps (e.g. a minefield's call). */
  extraCalls?: readonly GoldCall[];
  /** Filled with whether the mutated argument is one a milestone constrains (a golden trace names it, or a database target gave it). */
  report?: { mutatedArgumentConstrained?: boolean; mutatedCall?: string };
}

/** A changed value of the same type (strings gain a suffix, numbers move by 1000, booleans flip). */
export function mutated(value: unknown): unknown {
  if (typeof value === "string") return `${value} changed`;
  if (typeof value === "number") return value + 1000;
  if (typeof value === "boolean") return !value;
  return "changed";
}

/** A topological order of the milestone DAG; settings changes first among the ready ones (later guardrails expect them made). */
function topologicalOrder(milestones: ScenarioData["evaluation"]["milestones"]): number[] {
  const remaining = new Set(milestones.dag_nodes);
  const order: number[] = [];
  const isSetting = (node: number) => (milestones.items[node]?.snapshot_constraints ?? []).some((constraint) => constraint.origin === "declared" && constraint.database_namespace === "SETTING");
  while (remaining.size > 0) {
    const ready = [...remaining].sort((a, b) => a - b).filter((node) => !milestones.dag_edges.some(([from, to]) => to === node && remaining.has(from)));
    const next = ready.find(isSetting) ?? ready[0];
    if (next === undefined) break;
    order.push(next);
    remaining.delete(next);
  }
  return order;
}

const SETTING_TOOLS: Record<string, string> = { cellular: "set_cellular_service_status", wifi: "set_wifi_status", location_service: "set_location_service_status", low_battery_mode: "set_low_battery_mode_status" };

/** Arguments for a search whose milestone accepts any arguments (ToolSandbox's searches need at least one criterion). */
const NEUTRAL_ARGUMENTS: Record<string, Record<string, unknown>> = {
  search_messages: { creation_timestamp_lowerbound: 315529200.0 },
  search_reminder: { creation_timestamp_lowerbound: 315529200.0 },
  search_contacts: { is_self: false },
};

/** The local date and time of the scenario's target reminder, as `datetime_info_to_timestamp` arguments. */
function reminderDateTime(scenario: ScenarioData, utcOffsetHours: number): Record<string, number> {
  for (const milestone of scenario.evaluation.milestones.items) {
    for (const constraint of milestone.snapshot_constraints) {
      const timestamp = constraint.target_dataframe?.rows[0]?.reminder_timestamp;
      if (constraint.database_namespace === "REMINDER" && typeof timestamp === "number") {
        const value = fromTimestamp(timestamp, utcOffsetHours);
        return { year: value.year, month: value.month, day: value.day, hour: value.hour, minute: value.minute, second: value.second };
      }
    }
  }
  return {};
}

function declared(milestone: MilestoneData): SnapshotConstraintData[] {
  return milestone.snapshot_constraints.filter((constraint) => constraint.origin === "declared" && constraint.target_dataframe !== null);
}

function withoutNulls(row: Row, keys: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of keys) if (row[key] !== null && row[key] !== undefined) out[key] = row[key];
  return out;
}

/**
 * Builds the gold conversation of a scenario in a fresh episode: `execute` runs one call in the episode (appending the
 * assistant call and the tool message) and returns the call's result as the trace records it; `say` appends a reply.
 */
export function buildGold(scenario: ScenarioData, execute: (call: GoldCall) => unknown, say: (text: string) => void, options: GoldOptions = {}, utcOffsetHours = 0): void {
  const traceResults = new Map<number, Record<string, unknown>>();
  const done = new Set<string>();
  let mutationPending = options.mutateFirstArgument === true;
  const location = (): { latitude: number; longitude: number } => ({ latitude: 37.334606, longitude: -122.009102 });
  const call = (milestoneIndex: number, gold: GoldCall, constrainedArguments?: ReadonlySet<string>) => {
    const key = JSON.stringify(gold);
    if (done.has(key)) return;
    done.add(key);
    let made = gold;
    const firstKey = Object.keys(gold.arguments)[0];
    if (mutationPending && firstKey !== undefined) {
      made = { name: gold.name, arguments: { ...gold.arguments, [firstKey]: mutated(gold.arguments[firstKey]) } };
      mutationPending = false;
      if (options.report !== undefined) {
        options.report.mutatedCall = `${gold.name}.${firstKey}`;
        options.report.mutatedArgumentConstrained = constrainedArguments === undefined || constrainedArguments.has(firstKey);
      }
    }
    const result = execute(made);
    traceResults.set(milestoneIndex, { tool_name: made.name, arguments: made.arguments, result });
  };
  for (const index of topologicalOrder(scenario.evaluation.milestones)) {
    if (index === options.skipMilestone) continue;
    const milestone = scenario.evaluation.milestones.items[index] as MilestoneData;
    const constraints = declared(milestone);
    const first = constraints[0];
    if (first === undefined) continue;
    const row = (first.target_dataframe as NonNullable<SnapshotConstraintData["target_dataframe"]>).rows[0] as Row;
    const extracted: Record<string, unknown> = {};
    for (const constraint of constraints) {
      const extractor = constraint.similarity.kwargs?.extractor as { name?: string } | undefined;
      const reference = constraint.reference_milestone_node_index;
      if (extractor?.name === undefined || reference === null) continue;
      const trace = traceResults.get(reference);
      if (trace === undefined) continue;
      try {
        Object.assign(extracted, toolTraceExtractor(extractor.name)(trace)[0] ?? {});
      } catch (error) {
        if (!PythonException.isInstance(error)) throw error;
      }
    }
    if (first.database_namespace === "SANDBOX") {
      if (typeof row.tool_trace === "string") {
        const parsed = JSON.parse(row.tool_trace) as unknown;
        const golden = (Array.isArray(parsed) ? parsed[0] : parsed) as { tool_name: string; arguments: Record<string, unknown> };
        const args: Record<string, unknown> = { ...golden.arguments, ...extracted };
        if (Object.keys(args).length === 0) Object.assign(args, NEUTRAL_ARGUMENTS[golden.tool_name] ?? {});
        if (golden.tool_name === "datetime_info_to_timestamp" && args.year === undefined) Object.assign(args, reminderDateTime(scenario, utcOffsetHours));
        if (golden.tool_name === "search_lat_lon" && args.latitude === undefined) Object.assign(args, location());
        if (golden.tool_name === "search_location_around_lat_lon" && args.location === undefined) args.location = "Whole Foods";
        call(index, { name: golden.tool_name, arguments: args }, new Set([...Object.keys(golden.arguments), ...Object.keys(extracted)]));
      } else if (row.sender === "AGENT" && typeof row.content === "string") {
        const plain = constraints.find((constraint) => constraint.column_similarity_overrides.content === undefined) ?? first;
        const content = ((plain.target_dataframe as NonNullable<SnapshotConstraintData["target_dataframe"]>).rows[0] as Row).content as string;
        try {
          say(pythonFormat(content, extracted));
        } catch (error) {
          if (!PythonException.isInstance(error)) throw error;
          say(content);
        }
      }
      continue;
    }
    if (first.database_namespace === "SETTING") {
      for (const [column, value] of Object.entries(row)) if (SETTING_TOOLS[column] !== undefined) call(index, { name: SETTING_TOOLS[column], arguments: { on: value } });
      continue;
    }
    const similarity = first.similarity.name;
    for (const target of (first.target_dataframe as NonNullable<SnapshotConstraintData["target_dataframe"]>).rows) {
      if (first.database_namespace === "CONTACT") {
        if (similarity === "removal_similarity") call(index, { name: "remove_contact", arguments: { person_id: target.person_id } });
        else if (similarity === "update_similarity") call(index, { name: "modify_contact", arguments: withoutNulls(target, ["person_id", "name", "phone_number", "relationship", "is_self"]) });
        else call(index, { name: "add_contact", arguments: withoutNulls(target, ["name", "phone_number", "relationship", "is_self"]) });
      } else if (first.database_namespace === "MESSAGING") {
        call(index, { name: "send_message_with_phone_number", arguments: { phone_number: target.recipient_phone_number, content: target.content } });
      } else if (first.database_namespace === "REMINDER") {
        if (similarity === "removal_similarity") call(index, { name: "remove_reminder", arguments: { reminder_id: target.reminder_id } });
        else if (similarity === "update_similarity") call(index, { name: "modify_reminder", arguments: withoutNulls(target, ["reminder_id", "content", "reminder_timestamp", "latitude", "longitude"]) });
        else call(index, { name: "add_reminder", arguments: withoutNulls(target, ["content", "reminder_timestamp", "latitude", "longitude"]) });
      }
    }
  }
  for (const extra of options.extraCalls ?? []) execute(extra);
}

/** The gold conversation (or a variation) of a task, played in a fresh episode of the environment. */
export function goldConversation(environment: ToolSandboxEnvironment, task: Task, options: GoldOptions = {}): Message[] {
  const scenario = environment.scenario(task);
  const episode: ToolSandboxEpisode = environment.start(task);
  const agentName = new Map(scenario.agent_tools.map((tool) => [tool.execution_name, tool.agent_facing_name]));
  const messages: Message[] = [{ role: "user", content: firstUserMessage(scenario) }];
  let callNumber = 0;
  buildGold(
    scenario,
    (gold) => {
      const call: ToolCall = { id: `call_${++callNumber}`, type: "function", function: { name: agentName.get(gold.name) ?? gold.name, arguments: JSON.stringify(gold.arguments) } };
      const assistant: AssistantMessage = { role: "assistant", content: null, tool_calls: [call] };
      messages.push(assistant);
      const [result] = episode.executeToolCalls([call]);
      messages.push({ role: "tool", tool_call_id: call.id, content: result?.content ?? "", error: result?.error ?? true });
      return episode.lastTrace === null ? null : (JSON.parse(episode.lastTrace) as { result: unknown }).result;
    },
    (text) => messages.push({ role: "assistant", content: text }),
    options,
    environment.clock.utcOffsetHours,
  );
  messages.push({ role: "user", content: END_CONVERSATION_TOKEN });
  return messages;
}
