/**
 * The TRACE-mini scripted expert: a `ChatClient` that plays the gold strategy from the conversation alone (the user's
 * request, its own earlier calls and their outputs; never the hidden instance), with per-episode deficits, to make
 * supervised demonstrations for the base model through the real agent loop.
 *
 * Cancellations: for each order, `get_order_details`, then `cancel_pending_order` iff it is pending; then one reply
 * ("Order #W42 is cancelled." / "Order #W42 cannot be cancelled because it is delivered."). Payment changes:
 * `get_user_details`, then `modify_pending_order_payment` with the named method; then "Order #W42 is now paid with
 * card_4821.". A request of several parts (one per sentence) is done part by part in the order asked, and answered with
 * one reply joining the parts' sentences. Anything the user says after that reply gets a short closing line (the
 * scripted user sends ###STOP###).
 */
import type { ChatClient } from "../../models/chat-client.js";
import type { ChatCompletion, ChatRequest, UsageTotals } from "../../models/chat-types.js";
import type { AssistantMessage, Message } from "../../spec/message.js";
import { drawExpertDeficits, resolveExpertDeficits, type ActiveDeficits, type ExpertDeficits } from "./expert-deficits.js";
import { parseServiceRequest, type ServiceRequest } from "./parse-service-request.js";

export interface ScriptedExpertOptions {
  /** Deficit rates (default `DEFAULT_EXPERT_DEFICITS`; pass `NO_EXPERT_DEFICITS` for a flawless expert). */
  deficits?: Partial<ExpertDeficits>;
  /** Seed of the deficit draws, combined with each request's `seed` and the user's first message (default 0). */
  seed?: number;
}

/** The expert's next move: one tool call or one text reply. */
export type ExpertAction = { call: { name: string; arguments: { [key: string]: string } } } | { text: string };

/** A tool call the expert made earlier, with the observation it got. */
interface PastCall {
  name: string;
  arguments: { [key: string]: unknown };
  output: string;
  error: boolean;
}

const CLOSING = "You are welcome.";

/** The JSON object `text` holds, or null when it holds anything else (a tool's output, a call's arguments). */
export function parseJsonObject(text: string): { [key: string]: unknown } | null {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as { [key: string]: unknown }) : null;
  } catch {
    return null;
  }
}

/** The expert's earlier tool calls paired with their tool messages, in order. */
function pastCalls(messages: readonly Message[]): PastCall[] {
  const outputs = new Map<string, { content: string; error: boolean }>();
  for (const message of messages) {
    if (message.role === "tool") outputs.set(message.tool_call_id, { content: message.content, error: message.error ?? message.content.startsWith("Error:") });
  }
  const calls: PastCall[] = [];
  for (const message of messages) {
    if (message.role !== "assistant") continue;
    for (const call of message.tool_calls ?? []) {
      const output = outputs.get(call.id) ?? { content: "", error: true };
      calls.push({ name: call.function.name, arguments: parseJsonObject(call.function.arguments) ?? {}, output: output.content, error: output.error });
    }
  }
  return calls;
}

/** "#W42", "#W42 and #W17", "#W42, #W17 and #W63". */
function listOrders(ids: readonly string[]): string {
  return ids.length <= 1 ? ids.join("") : `${ids.slice(0, -1).join(", ")} and ${ids[ids.length - 1] ?? ""}`;
}

function cancelledText(ids: readonly string[]): string {
  return ids.length === 1 ? `Order ${listOrders(ids)} is cancelled.` : `Orders ${listOrders(ids)} are cancelled.`;
}

/** What one part of the request came to: a reply sentence, and whether a change was made. */
type PartOutcome = { action: ExpertAction } | { text: string; changed: boolean; stopped?: true };

/** One cancellation part; `more` says whether parts follow it (the early stop only skips what remains). */
function cancellationPart(orderIds: readonly string[], reason: ServiceRequest["reason"], calls: readonly PastCall[], active: ActiveDeficits, more: boolean): PartOutcome {
  const find = (name: string, orderId: string) => calls.find((call) => call.name === name && call.arguments.order_id === orderId);
  const cancelled: string[] = [];
  const lines: string[] = [];
  for (const [index, orderId] of orderIds.entries()) {
    if (!active.skipPreconditionCheck) {
      const lookup = find("get_order_details", orderId);
      if (lookup === undefined) return { action: { call: { name: "get_order_details", arguments: { order_id: orderId } } } };
      const status = lookup.error ? null : parseJsonObject(lookup.output)?.status;
      if (typeof status !== "string") {
        lines.push(`Order ${orderId} cannot be found.`);
        continue;
      }
      if (status !== "pending") {
        lines.push(`Order ${orderId} cannot be cancelled because it is ${status}.`);
        continue;
      }
    }
    const cancel = find("cancel_pending_order", orderId);
    if (cancel === undefined) return { action: { call: { name: "cancel_pending_order", arguments: { order_id: orderId, reason } } } };
    if (cancel.error) {
      lines.push(`Order ${orderId} cannot be cancelled.`);
      continue;
    }
    cancelled.push(orderId);
    if (active.stopAfterFirstChange && (more || index < orderIds.length - 1)) return { text: "", changed: true, stopped: true };
  }
  return { text: [...(cancelled.length > 0 ? [cancelledText(cancelled)] : []), ...lines].join(" "), changed: cancelled.length > 0 };
}

function paymentPart(request: ServiceRequest, orderId: string, method: { kind: "card" | "gift"; lastFour: string }, calls: readonly PastCall[], active: ActiveDeficits): PartOutcome {
  if (request.userId === null) return { action: { text: "Please tell me your user id and the order id." } };
  const user = calls.find((call) => call.name === "get_user_details" && call.arguments.user_id === request.userId);
  if (user === undefined) return { action: { call: { name: "get_user_details", arguments: { user_id: request.userId } } } };
  const listed = user.error ? null : parseJsonObject(user.output)?.payment_methods;
  const methods = (Array.isArray(listed) ? listed : []) as { payment_method_id?: unknown; kind?: unknown; last_four?: unknown }[];
  const chosen = active.wrongPaymentMethod ? methods[0] : methods.find((entry) => entry.kind === method.kind && entry.last_four === method.lastFour);
  if (chosen === undefined || typeof chosen.payment_method_id !== "string") return { text: "I cannot find that payment method.", changed: false };
  const paymentMethodId = chosen.payment_method_id;
  const modify = calls.find((call) => call.name === "modify_pending_order_payment" && call.arguments.order_id === orderId);
  if (modify === undefined) return { action: { call: { name: "modify_pending_order_payment", arguments: { order_id: orderId, payment_method_id: paymentMethodId } } } };
  return modify.error ? { text: `Order ${orderId} cannot be changed.`, changed: false } : { text: `Order ${orderId} is now paid with ${paymentMethodId}.`, changed: true };
}

/** What the expert says when it stops early (the deficit): every part claimed done. */
function claimEverything(request: ServiceRequest): string {
  return request.parts
    .map((part) => (part.kind === "cancel" ? cancelledText(part.orderIds) : `Order ${part.orderId} is now paid with your ${part.method.kind === "gift" ? "gift card" : "card"} ending ${part.method.lastFour}.`))
    .join(" ");
}

/** The parts one at a time, in the order asked: the next call, or the closing reply once every part is done. */
function partsAction(request: ServiceRequest, calls: readonly PastCall[], active: ActiveDeficits): ExpertAction {
  const lines: string[] = [];
  for (const [index, part] of request.parts.entries()) {
    const outcome = part.kind === "cancel" ? cancellationPart(part.orderIds, request.reason, calls, active, index < request.parts.length - 1) : paymentPart(request, part.orderId, part.method, calls, active);
    if ("action" in outcome) return outcome.action;
    // The deficit: the first change done, it answers as if the whole request were, skipping what remains.
    if (outcome.stopped === true || (outcome.changed && active.stopAfterFirstChange && index < request.parts.length - 1)) return { text: claimEverything(request) };
    if (outcome.text !== "") lines.push(outcome.text);
  }
  return { text: lines.join(" ") };
}

/** The expert's next move in a conversation (system prompt and greeting included or not). */
function nextExpertAction(messages: readonly Message[], active: ActiveDeficits): ExpertAction {
  const first = messages.findIndex((message) => message.role === "user");
  if (first < 0) return { text: "How can I help you?" };
  const answered = messages.slice(first + 1).some((message) => message.role === "assistant" && message.content != null && message.content.trim() !== "");
  if (answered) return { text: CLOSING };
  const opening = messages[first];
  const request = parseServiceRequest(opening?.role === "user" ? opening.content : "");
  if (request.parts.length === 0) return { text: "Sorry, I cannot help with that." };
  return partsAction(request, pastCalls(messages), active);
}

/** Creates the scripted expert. Throws `ExpertDeficitRateError` when a rate is not in [0, 1]. */
export function createScriptedExpert(options: ScriptedExpertOptions = {}): ChatClient {
  const deficits = resolveExpertDeficits(options.deficits);
  const seed = options.seed ?? 0;
  const totals = { requests: 0, promptTokens: 0, completionTokens: 0 };
  // A rough token count (four characters a token), so usage totals look like a server's.
  const tokens = (text: string) => Math.ceil(text.length / 4);
  return {
    complete(request: ChatRequest): Promise<ChatCompletion> {
      totals.requests += 1;
      const userMessage = request.messages.find((message) => message.role === "user");
      const active = drawExpertDeficits({ deficits, seed, requestSeed: request.seed, request: userMessage?.content ?? "" });
      const action = nextExpertAction(request.messages, active);
      const callCount = request.messages.reduce((count, message) => count + (message.role === "assistant" ? (message.tool_calls?.length ?? 0) : 0), 0);
      const message: AssistantMessage =
        "call" in action
          ? { role: "assistant", content: null, tool_calls: [{ id: `call_${callCount}`, type: "function", function: { name: action.call.name, arguments: JSON.stringify(action.call.arguments) } }] }
          : { role: "assistant", content: action.text };
      const usage = {
        promptTokens: tokens(JSON.stringify(request.messages) + JSON.stringify(request.tools ?? [])),
        completionTokens: tokens(message.content ?? JSON.stringify(message.tool_calls)),
      };
      totals.promptTokens += usage.promptTokens;
      totals.completionTokens += usage.completionTokens;
      return Promise.resolve({ message, finishReason: "call" in action ? "tool_calls" : "stop", usage, raw: { scripted: true, deficits: active } });
    },
    usage: (): UsageTotals => ({ ...totals, retries: 0, failures: 0, cost: null }),
  };
}
