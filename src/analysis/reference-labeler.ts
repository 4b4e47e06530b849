/**
 * The reference-guided labeler (no LLM): labels a τ² trajectory on the fixed dictionary of `reference-capabilities.ts`
 * by comparing it with the task's gold. Calls are compared by tool and target record (the first `…_id` parameter of the
 * tool's schema); final states by replaying the gold actions and the conversation's own calls on fresh databases
 * (as τ²-bench's grader does, gold actions that fail on replay change nothing and are not required).
 */
import type { Tau2DomainData } from "../envs/tau2/domain-data.js";
import { communicateChecks, replayConversation, toolCallsWithObservations } from "../envs/tau2/grade.js";
import type { Tau2Task } from "../envs/tau2/task-schema.js";
import type { Message } from "../spec/message.js";
import type { CapabilityLabel } from "../store/trajectory-store.js";
import type { ReferenceCapabilityName } from "./reference-capabilities.js";

/** A tool call of the conversation with what the labels need. */
interface CallRecord {
  name: string;
  kind: string | undefined;
  arguments: Record<string, unknown>;
  /** The value of the tool's target parameter, when it has one. */
  target: unknown;
  /** The observation, unless it was missing or an error. */
  result: string | undefined;
}

/** String values under keys ending in `_id` or `_ids`, at any depth of a call's arguments. */
export function identifierArguments(value: unknown, key = ""): string[] {
  const isIdentifierKey = key.endsWith("_id") || key.endsWith("_ids");
  if (typeof value === "string") return isIdentifierKey && value !== "" ? [value] : [];
  if (Array.isArray(value)) return value.flatMap((item) => identifierArguments(item, key));
  if (value !== null && typeof value === "object") return Object.entries(value).flatMap(([name, item]) => identifierArguments(item, name));
  return [];
}

function argumentsObject(raw: string | Record<string, unknown>): Record<string, unknown> {
  if (typeof raw !== "string") return raw;
  try {
    const value = JSON.parse(raw === "" ? "{}" : raw) as unknown;
    return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** The parameter that names the record a tool acts on: its first parameter ending in `_id`, in schema order. */
function targetParameter(data: Tau2DomainData, toolName: string): string | undefined {
  const properties = data.toolKit.tool(toolName)?.parameters.properties;
  if (properties === null || typeof properties !== "object") return undefined;
  return Object.keys(properties).find((name) => name.endsWith("_id"));
}

function callRecord(data: Tau2DomainData, name: string, raw: string | Record<string, unknown>, observation: string | undefined): CallRecord {
  const parsed = argumentsObject(raw);
  const target = targetParameter(data, name);
  const failed = observation === undefined || observation.trimStart().startsWith("Error");
  return { name, kind: data.toolKit.kind(name), arguments: parsed, target: target === undefined ? undefined : parsed[target], result: failed ? undefined : observation };
}

function targetKey(call: CallRecord): string {
  return `${call.name} ${JSON.stringify(call.target ?? null)}`;
}

function counts(keys: readonly string[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const key of keys) out.set(key, (out.get(key) ?? 0) + 1);
  return out;
}

/**
 * Whether every write attempt was preceded by its lookups: the record it targets was read by an earlier successful
 * read call, and every other identifier it passes appeared in an earlier successful tool result.
 */
function writesLookedUp(calls: readonly CallRecord[]): boolean {
  const results: string[] = [];
  const read = new Set<string>();
  for (const call of calls) {
    if (call.kind === "write") {
      const targetRead = typeof call.target !== "string" || read.has(call.target);
      const others = identifierArguments(call.arguments).filter((identifier) => identifier !== call.target);
      if (!targetRead || !others.every((identifier) => results.some((text) => text.includes(identifier)))) return false;
    }
    if (call.result === undefined) continue;
    results.push(call.result);
    if (call.kind === "read") identifierArguments(call.arguments).forEach((identifier) => read.add(identifier));
  }
  return true;
}

function recordKeys(changes: readonly { table: string; id: string }[]): Set<string> {
  return new Set(changes.map(({ table, id }) => `${table}/${id}`));
}

/** The reference labels of one conversation of `task`. */
export function referenceLabels(data: Tau2DomainData, task: Tau2Task, messages: readonly Message[]): Record<ReferenceCapabilityName, CapabilityLabel> {
  const calls = toolCallsWithObservations(messages).map(({ call, observation }) => callRecord(data, call.function.name, call.function.arguments, observation));
  const writes = calls.filter((call) => call.kind === "write");
  // The gold actions replayed on a fresh state; a gold write that fails there (τ² gold sometimes has one) changes nothing.
  const gold = data.database.createState();
  const goldWrites: CallRecord[] = [];
  for (const action of task.evaluation_criteria?.actions ?? []) {
    if (action.requestor !== "assistant") continue;
    const result = data.toolKit.execute(gold, action.name, action.arguments);
    if (data.toolKit.kind(action.name) === "write" && !result.error) goldWrites.push(callRecord(data, action.name, action.arguments, result.content));
  }

  // Completion: as many successful calls of each gold write's tool on its target record as the gold makes.
  const done = counts(writes.filter((call) => call.result !== undefined).map(targetKey));
  const complete = [...counts(goldWrites.map(targetKey))].every(([key, needed]) => (done.get(key) ?? 0) >= needed);

  // States: records the gold changes, records the conversation changes, and records where the two end up different.
  const fresh = data.database.createState();
  const own = replayConversation(data, messages).state;
  const required = recordKeys(gold.differences(fresh));
  const changed = recordKeys(own.differences(fresh));
  const different = recordKeys(gold.differences(own));
  const requiredChanged = [...required].filter((record) => changed.has(record));

  const communicate = task.evaluation_criteria?.communicate_info ?? [];
  return {
    complete_required_state_changes: goldWrites.length === 0 ? "NA" : complete ? "PRESENT" : "LACKING",
    correct_write_arguments: requiredChanged.length === 0 ? "NA" : requiredChanged.some((record) => different.has(record)) ? "LACKING" : "PRESENT",
    avoid_unrequested_state_changes:
      goldWrites.length === 0 && writes.length === 0 ? "NA" : [...changed].some((record) => !required.has(record)) ? "LACKING" : "PRESENT",
    communicate_required_information:
      communicate.length === 0 ? "NA" : communicateChecks(messages, communicate).every((check) => check.met) ? "PRESENT" : "LACKING",
    lookup_before_write: writes.length === 0 ? "NA" : writesLookedUp(calls) ? "PRESENT" : "LACKING",
  };
}
