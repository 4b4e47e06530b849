/**
 * Why a TRACE-mini episode failed, in terms of the scripted expert's designed deficits: each failed episode is
 * explained by the deficits its conversation shows, or by something else (a garbled id, a call the tools refuse, a
 * wrong reply, an unrequested change). Read from the conversation's own tool calls replayed from the instance's
 * initial state (as the grader replays) against the gold solution's final state; it never looks at the policy.
 */
import type { Message } from "../../spec/message.js";
import type { Json, ModuleInstance, VerifierInput } from "../modules/capability-module.js";
import { MINI_IDENTIFIER } from "./mechanics.js";
import { MINI_READ_TOOLS } from "./mini-service-module.js";
import { parseJsonObject } from "./scripted-expert.js";

/** A designed deficit seen in an episode (the expert's `ExpertDeficits`, by what the conversation shows). */
export type DesignedDeficit = "precondition" | "payment" | "incomplete";

/** What explains one episode's failure. */
export interface FailureAttribution {
  /** The designed deficits the conversation shows. */
  deficits: DesignedDeficit[];
  /** True when something the designed deficits do not explain is wrong as well (or instead). */
  other: boolean;
}

type Row = { [key: string]: Json };

const ordersOf = (state: { [key: string]: Json }): { [id: string]: Row } => (state.orders ?? {}) as { [id: string]: Row };
const same = (left: Json | undefined, right: Json | undefined): boolean => JSON.stringify(left) === JSON.stringify(right);

/** The order ids the request asks about (`facts.order_ids`, or the parts of a composite request). */
function requestedOrders(instance: ModuleInstance): string[] {
  const parts = instance.facts.parts;
  if (Array.isArray(parts)) return parts.map((part) => (part as Row).order_id).filter((id): id is string => typeof id === "string");
  const ids = instance.facts.order_ids;
  return Array.isArray(ids) ? ids.map(String) : [];
}

/**
 * Attributes a failed episode: `own` is the conversation's verifier input, `gold` the gold solution's (both from
 * `verifier-input.ts`), `communicated` whether the grader's COMMUNICATE check passed.
 * - `precondition`: an order that was not pending got cancelled (the status was not checked, or ignored);
 * - `payment`: an order's payment set to one of the user's methods other than the one named;
 * - `incomplete`: the agent made a change (a write the tools accepted, even one that left the order as it was, such as
 *   the wrong payment method that the order already had) and left a requested order untouched (never looked up or changed);
 * - `other`: any other difference from the gold state, or a failed COMMUNICATE check that no deficit explains.
 */
export function attributeMiniFailure(instance: ModuleInstance, own: VerifierInput, gold: VerifierInput, communicated: boolean): FailureAttribution {
  const initial = ordersOf(instance.state);
  const expected = ordersOf(gold.finalState);
  const final = ordersOf(own.finalState);
  const deficits = new Set<DesignedDeficit>();
  let other = false;
  const touched = new Set(own.calls.flatMap((call) => Object.values(call.arguments).filter((value): value is string => typeof value === "string")));
  const wrote = own.calls.some((call) => !call.error && !MINI_READ_TOOLS.includes(call.name));
  const changed = wrote || !same(final, initial);
  const untouched = requestedOrders(instance).filter((id) => !touched.has(id));
  const incomplete = changed && untouched.length > 0;
  if (incomplete) deficits.add("incomplete");
  for (const id of new Set([...Object.keys(initial), ...Object.keys(final)])) {
    const before = initial[id];
    const after = final[id];
    const goal = expected[id];
    if (same(after, goal)) continue;
    if (before !== undefined && after !== undefined && before.status !== "pending" && after.status === "cancelled") {
      deficits.add("precondition");
      continue;
    }
    if (incomplete && untouched.includes(id) && same(after, before)) continue;
    // Paid with another of the user's methods (the tool refuses ids the user does not have), possibly the current one.
    const paidOtherwise =
      after !== undefined &&
      goal !== undefined &&
      same({ ...after, payment_method_id: null }, { ...goal, payment_method_id: null }) &&
      own.calls.some((call) => call.name === "modify_pending_order_payment" && !call.error && call.arguments.order_id === id && call.arguments.payment_method_id !== goal.payment_method_id);
    if (paidOtherwise) {
      deficits.add("payment");
      continue;
    }
    other = true;
  }
  if (!communicated && deficits.size === 0) other = true;
  return { deficits: [...deficits].sort(), other };
}

/**
 * Slips of a model acting on its own conversation (free-running), which the teacher-forced mechanics measure
 * (`mechanics.ts`: each turn after the expert's own earlier turns) cannot see. Used to say what the failures that no
 * designed deficit explains look like.
 */
export interface EpisodeSlips {
  /** A tool call carries an identifier (`u17`, `#W42`, `card_4821`) that appears nowhere earlier in the conversation. */
  inventedIdentifier: boolean;
  /** A write (the same tool with the same arguments) made again after the tools accepted it once. */
  repeatedWrite: boolean;
  /** A tool refused a call: an unknown id, a payment method the user does not have, an invalid reason. */
  refusedCall: boolean;
}

/** The ids of the tool calls in `messages` that the tools refused (an error result, or one reading "Error: …"). */
export function refusedCallIds(messages: readonly Message[]): Set<string> {
  return new Set(messages.flatMap((message) => (message.role === "tool" && (message.error === true || message.content.startsWith("Error:")) ? [message.tool_call_id] : [])));
}

/** The slips `messages` show (the conversation of one episode, tool results included). */
export function episodeSlips(messages: readonly Message[]): EpisodeSlips {
  const refused = refusedCallIds(messages);
  const slips: EpisodeSlips = { inventedIdentifier: false, repeatedWrite: false, refusedCall: refused.size > 0 };
  const accepted = new Set<string>();
  // Whole identifiers, not substrings: `#W3` is not copied from a conversation that only names `#W33`.
  const seen = new Set<string>();
  const identifiers = (text: string | null) => text?.match(MINI_IDENTIFIER) ?? [];
  for (const message of messages) {
    if (message.role === "assistant") {
      for (const call of message.tool_calls ?? []) {
        if (identifiers(call.function.arguments).some((identifier) => !seen.has(identifier))) slips.inventedIdentifier = true;
        if (MINI_READ_TOOLS.includes(call.function.name) || refused.has(call.id)) continue;
        const write = `${call.function.name} ${canonicalArguments(call.function.arguments)}`;
        if (accepted.has(write)) slips.repeatedWrite = true;
        accepted.add(write);
      }
      for (const text of [message.content, ...(message.tool_calls ?? []).map((call) => call.function.arguments)]) for (const identifier of identifiers(text)) seen.add(identifier);
    } else for (const identifier of identifiers(message.content)) seen.add(identifier);
  }
  return slips;
}

/**
 * What an episode's closing reply claims that its tools never did. The expert's early stop (`stopAfterFirstChange`)
 * claims exactly this — every part done after the first change, including parts it never reached or looked up and
 * found not pending (`claimEverything` in `scripted-expert.ts`) — so a claim is no slip; counted to say what the
 * failures no designed deficit explains look like. Read from the expert's reply templates ("Order #W1 is cancelled.",
 * "Orders #W1 and #W2 are cancelled.", "Order #W1 is now paid with …"), which the base copies.
 */
export interface EpisodeClaims {
  /** The closing reply calls an order cancelled, or paid, with no cancellation or payment change of it the tools accepted. */
  unmadeChange: boolean;
  /** The closing reply calls an order cancelled that the conversation looked up and found not pending, and never cancelled. */
  notPendingCalledCancelled: boolean;
}

const CANCELLED_CLAIM = /\bOrders? (#W\d+(?:(?:, | and )#W\d+)*) (?:is|are) cancelled\b/g;
const PAID_CLAIM = /\bOrder (#W\d+) is now paid\b/g;

/** The claims of `messages`' closing reply (the last assistant text without tool calls) against the tools' results. */
export function episodeClaims(messages: readonly Message[]): EpisodeClaims {
  const calls = new Map<string, { name: string; orderId: unknown }>();
  const cancelled = new Set<string>();
  const paid = new Set<string>();
  const notPending = new Set<string>();
  for (const message of messages) {
    if (message.role === "assistant") {
      for (const call of message.tool_calls ?? []) calls.set(call.id, { name: call.function.name, orderId: parseJsonObject(call.function.arguments)?.order_id });
      continue;
    }
    if (message.role !== "tool" || message.error === true || message.content.startsWith("Error:")) continue;
    const call = calls.get(message.tool_call_id);
    if (call === undefined || typeof call.orderId !== "string") continue;
    if (call.name === "cancel_pending_order") cancelled.add(call.orderId);
    else if (call.name === "modify_pending_order_payment") paid.add(call.orderId);
    else if (call.name === "get_order_details") {
      const status = parseJsonObject(message.content)?.status;
      if (typeof status === "string" && status !== "pending") notPending.add(call.orderId);
    }
  }
  const reply = closingReply(messages);
  const calledCancelled = [...reply.matchAll(CANCELLED_CLAIM)].flatMap((match) => match[1]?.match(/#W\d+/g) ?? []).filter((id) => !cancelled.has(id));
  const calledPaid = [...reply.matchAll(PAID_CLAIM)].map((match) => match[1] ?? "").filter((id) => !paid.has(id));
  return { unmadeChange: calledCancelled.length + calledPaid.length > 0, notPendingCalledCancelled: calledCancelled.some((id) => notPending.has(id)) };
}

/** The text of `messages`' closing reply: the last assistant turn with text and no tool calls ("" when none). */
export function closingReply(messages: readonly Message[]): string {
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index]!;
    if (message.role === "assistant" && (message.tool_calls ?? []).length === 0 && typeof message.content === "string" && message.content !== "") return message.content;
  }
  return "";
}

/** A call's arguments with their keys sorted (the text itself when it is not a JSON object). */
function canonicalArguments(text: string): string {
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) return text;
    return JSON.stringify(Object.fromEntries(Object.entries(parsed).sort(([left], [right]) => left.localeCompare(right))));
  } catch {
    return text;
  }
}
