/**
 * The reference-guided labeler (no LLM) for capability-module environments: labels a conversation on the fixed
 * dictionary of `reference-capabilities.ts` by comparing it with the instance's gold, with the semantics of the τ²
 * labeler (`reference-labeler.ts`). The gold solution and the conversation's own tool calls are each replayed in order
 * through the module's `runTool` from `instance.state` (as the grader replays; a call that fails changes nothing), and
 * the final states are compared record by record (`module-reference-records.ts`: a record is `state[table][id]`). A
 * record is changed by a run when its canonical JSON differs from the initial state's; write calls are calls to the
 * module's tools that are not in `readTools`.
 */
import type { Message } from "../spec/message.js";
import type { CapabilityLabel } from "../store/trajectory-store.js";
import type { ModuleInstance, VerifierInput } from "../envs/modules/capability-module.js";
import type { ModuleRunner } from "../envs/modules/module-runner.js";
import { verifierInputFromCalls, verifierInputFromMessages } from "../envs/modules/verifier-input.js";
import { changedRecords } from "./module-reference-records.js";
import type { ReferenceCapabilityName } from "./reference-capabilities.js";
import { identifierArguments } from "./reference-labeler.js";

type ReplayedCall = VerifierInput["calls"][number];

/**
 * Whether every write call was preceded by its lookups: each identifier it passes (strings under `…_id` / `…_ids`
 * keys) appeared in the output of an earlier successful tool call; the user's messages do not count.
 */
function writesLookedUp(calls: readonly ReplayedCall[], isWrite: (name: string) => boolean): boolean {
  const outputs: string[] = [];
  for (const call of calls) {
    if (isWrite(call.name) && !identifierArguments(call.arguments).every((identifier) => outputs.some((output) => output.includes(identifier)))) return false;
    if (!call.error) outputs.push(call.output);
  }
  return true;
}

/** Whether each `mustSay` item is a case-insensitive substring of one of the assistant's text replies. */
function saysEverything(replies: readonly string[], mustSay: readonly string[]): boolean {
  const lowered = replies.map((reply) => reply.toLowerCase());
  return mustSay.every((item) => lowered.some((reply) => reply.includes(item.toLowerCase())));
}

/** The reference labels of one conversation of `instance` in the module that `runner` drives. */
export async function moduleReferenceLabels(runner: ModuleRunner, instance: ModuleInstance, messages: readonly Message[]): Promise<Record<ReferenceCapabilityName, CapabilityLabel>> {
  const toolNames = new Set(runner.tools.map((tool) => tool.function.name));
  const isWrite = (name: string): boolean => toolNames.has(name) && !runner.readTools.includes(name);
  const own = await verifierInputFromMessages(runner, instance, messages);
  const gold = await verifierInputFromCalls(runner, instance, instance.solution, []);
  const writes = own.calls.filter((call) => isWrite(call.name));

  // Records the gold changes, records the conversation changes, and records where the two end up different.
  const required = changedRecords(instance.state, gold.finalState);
  const changed = changedRecords(instance.state, own.finalState);
  const different = changedRecords(gold.finalState, own.finalState);
  const requiredChanged = [...required].filter((record) => changed.has(record));

  return {
    complete_required_state_changes: required.size === 0 ? "NA" : requiredChanged.length === required.size ? "PRESENT" : "LACKING",
    correct_write_arguments: requiredChanged.length === 0 ? "NA" : requiredChanged.some((record) => different.has(record)) ? "LACKING" : "PRESENT",
    avoid_unrequested_state_changes:
      required.size === 0 && writes.length === 0 ? "NA" : [...changed].some((record) => !required.has(record)) ? "LACKING" : "PRESENT",
    communicate_required_information: instance.mustSay.length === 0 ? "NA" : saysEverything(own.replies, instance.mustSay) ? "PRESENT" : "LACKING",
    lookup_before_write: writes.length === 0 ? "NA" : writesLookedUp(own.calls, isWrite) ? "PRESENT" : "LACKING",
  };
}
