/**
 * TRACE-mini: a tiny τ²-retail-shaped customer-service world that a 2–4 layer model trained from scratch can learn.
 * One user per task (1 user, 2–3 payment methods, 2–4 orders), short regular ids (`u17`, `#W42`, `card_4821`), four
 * τ² retail tools and a five-line policy. Three task families need three different capabilities:
 *
 * - `precondition`: cancel one order, pending in about half the seeds; the tools do not check the status, so the agent
 *   must look the order up and refuse (saying "cannot") when it is processed or delivered.
 * - `payment`: pay one pending order with a named method among look-alike ids (`card_4821`, `card_4812`, `gift_4281`).
 * - `multi_cancel`: cancel two or three pending orders; every one of them must be done.
 *
 * Grading as τ²: DB (the final state equals the gold solution replayed on the initial state) × COMMUNICATE (every
 * `mustSay` item appears in the agent's text replies, case-insensitively).
 *
 * Self-contained: no runtime imports (only types from the SDK contract), all randomness from `sdk.random` (seeded from `seed`).
 */
import type { CapabilityModule, Json, ModuleInstance, ModuleSdk, ModuleTool, SolutionCall, ToolOutcome, Verdict } from "../modules/capability-module.js";

/**
 * A kind of mini task. The first three exercise one capability each; `composite` asks for two or three things in one
 * request (each a cancellation that may not be allowed, or a payment change), so it needs completing every part and,
 * per part, the precondition check or the exact payment id: a task passes only if every part is right, as in τ².
 */
export const MINI_FAMILIES = ["precondition", "payment", "multi_cancel", "composite"] as const;

/** The tools that only read; every other tool of the mini worlds writes. */
export const MINI_READ_TOOLS: readonly string[] = ["get_user_details", "get_order_details"];

/** One of `MINI_FAMILIES`. */
export type MiniFamily = (typeof MINI_FAMILIES)[number];

/** How requests are worded and which id ranges they draw from: the target world, or the practice (synthetic) worlds. */
export type MiniPhrasing = "target" | "practice";

/** What `createMiniModule` builds a module from. */
export interface MiniModuleOptions {
  capability: string;
  description: string;
  /** The families `generate` picks from (uniformly, with the seed's generator). */
  families: MiniFamily[];
  phrasing: MiniPhrasing;
  /** Whether the module offers difficulty levels to calibration (`MINI_DIFFICULTY`); the target world has one fixed level. */
  calibrated?: boolean;
  /**
   * How a multi-part request is rewarded: `"task"` (default) as τ², DB × COMMUNICATE; `"parts"` counts DB per part,
   * the share of requested orders left as the request asks (0 when anything else changed), times COMMUNICATE, so an
   * episode that stops after the first change earns part of the reward. `"parts-and-words"` is `"parts"` times the
   * share of the required words said (COMMUNICATE's items), instead of all of them or nothing, so an episode that
   * handles the first part and says so earns part of the reward too. `"state-then-words"` is (DB + DB × COMMUNICATE) / 2
   * for any request: half for leaving the state as the policy asks, the other half for then saying the right thing,
   * so an episode that leaves a delivered order alone but says it is cancelled earns half. Success stays DB × COMMUNICATE.
   */
  reward?: "task" | "parts" | "parts-and-words" | "state-then-words";
  /**
   * `payment`: the named method is never the first one listed (default false: any of them). The base agent's designed
   * payment deficit pays with the first-listed method, so a seed naming that one is solved by the habit itself: its
   * group is all 1 and teaches GRPO nothing (a quarter to a half of the seeds, by level).
   */
  namedMethodNotFirst?: boolean;
  /**
   * `precondition`: how often the requested order is pending, processed or delivered (shares summing to 1). Unset, as
   * the target world: pending in half the draws, processed or delivered alike in the other half (the same draws).
   */
  statusShares?: MiniStatusShares;
  /**
   * `multi_cancel`: each requested order is pending in half the draws, as a composite request's cancellation is, so the
   * request needs the check on every order (refuse the ones not pending, cancel the rest). Default false: every
   * requested order is pending, and cancelling them all without a lookup is rewarded in full.
   */
  multiCancelChecks?: boolean;
}

/** The shares of a precondition request's order statuses (`MiniModuleOptions.statusShares`). */
export interface MiniStatusShares {
  pending: number;
  processed: number;
  delivered: number;
}

/** The order's status for a precondition request: the target's draw, or one by `shares`. */
function drawStatus(random: Random, shares: MiniStatusShares | undefined): "pending" | "processed" | "delivered" {
  if (shares === undefined) return random.next() < 0.5 ? "pending" : random.pick(["processed", "delivered"] as const);
  const draw = random.next();
  return draw < shares.pending ? "pending" : draw < shares.pending + shares.processed ? "processed" : "delivered";
}

/**
 * TRACE-mini's difficulty levels: a higher level draws more look-alike payment methods, more parts in a multi-part
 * request and more orders that are not part of it. Level 2 is the target world's own distribution (the same draws).
 */
export const MINI_DIFFICULTY = {
  levels: 5,
  initial: 2,
  description: "look-alike payment methods 2 / 2 / 2–3 / 3 / 4; parts of a multi-part request 2 / 2 / 2–3 / 3 / 3–4; orders in the account, besides the requested ones, none / up to 3 / up to 4 / 3–5 / 4–6 in all",
} as const;

/** How many look-alike payment methods a level draws (level 2 draws as the target world does, in the same order). */
function methodCount(level: number, random: Random): number {
  return [() => 2, () => 2, () => random.int(2, 3), () => 3, () => 4][level]!();
}

/** How many orders a level's request names (multi-part families) and how many the account holds in all. */
function orderCounts(level: number, random: Random, multiPart: boolean): { requested: number; orders: number } {
  const requested = multiPart ? [() => 2, () => 2, () => random.int(2, 3), () => 3, () => random.int(3, 4)][level]!() : 1;
  const orders = Math.max(requested, [() => requested, () => random.int(2, 3), () => random.int(2, 4), () => random.int(3, 5), () => random.int(4, 6)][level]!());
  return { requested, orders };
}

type State = { [key: string]: Json };
type Row = { [key: string]: Json };

/** The two cancellation reasons τ² retail accepts. */
const REASONS = ["no longer needed", "ordered by mistake"] as const;

// --- Tools: τ² retail names and argument names, schemas cut to the minimum. ------------------------------------------

const stringArgument: Json = { type: "string" };
const parameters = (properties: { [key: string]: Json }): { [key: string]: Json } => ({ type: "object", properties, required: Object.keys(properties) });
const tool = (name: string, description: string, properties: { [key: string]: Json }): ModuleTool => ({
  type: "function",
  function: { name, description, parameters: parameters(properties) },
});

const tools: ModuleTool[] = [
  tool("get_user_details", "Get a user's details.", { user_id: stringArgument }),
  tool("get_order_details", "Get an order's details.", { order_id: stringArgument }),
  tool("cancel_pending_order", "Cancel an order.", { order_id: stringArgument, reason: { type: "string", enum: [...REASONS] } }),
  tool("modify_pending_order_payment", "Change an order's payment method.", { order_id: stringArgument, payment_method_id: stringArgument }),
];

const policy = `Only pending orders can be cancelled or have their payment changed.
Check an order with get_order_details before cancelling it.
Payment method ids come from get_user_details; use the one the user names.
Do every change the user asks for, then say what you did.
If a request is not allowed, change nothing and say it cannot be done.`;

// --- Phrasing: request templates and id ranges. ---------------------------------------------------------------------

/** Slots: {user}, {order} (one order), {orders} (a list), {method} ("card ending 4821"), {reason} (a clause). */
interface Templates {
  precondition: string[];
  payment: string[];
  multi_cancel: string[];
  /** A composite request: an opening with {user}, then one sentence per part (the first, and the ones after it). */
  composite: { opening: string[]; cancel: string[]; pay: string[]; nextCancel: string[]; nextPay: string[] };
  /** How the user describes a payment method, `{kind}` being "card" or "gift card". */
  method: string;
  /** Reason clauses for one order and for several, by reason. */
  reasonOne: { [reason: string]: string };
  reasonMany: { [reason: string]: string };
}

const TEMPLATES: { [phrasing in MiniPhrasing]: Templates } = {
  target: {
    precondition: ["I am {user}. Please cancel order {order}, {reason}.", "Hi, I am {user}. Can you cancel order {order}? {Reason}.", "This is {user}. I want order {order} cancelled, {reason}."],
    payment: ["I am {user}. Please pay order {order} with my {method}.", "Hi, I am {user}. Can you change the payment of order {order} to my {method}?", "This is {user}. I want to pay order {order} with my {method}."],
    multi_cancel: ["I am {user}. Please cancel orders {orders}, {reason}.", "Hi, I am {user}. Can you cancel orders {orders}? {Reason}.", "This is {user}. I want orders {orders} cancelled, {reason}."],
    composite: {
      opening: ["I am {user}.", "Hi, I am {user}.", "This is {user}."],
      cancel: ["Please cancel order {order}.", "Can you cancel order {order}?"],
      pay: ["Please pay order {order} with my {method}.", "Can you change the payment of order {order} to my {method}?"],
      nextCancel: ["Also cancel order {order}.", "And please cancel order {order}."],
      nextPay: ["Also pay order {order} with my {method}.", "And change the payment of order {order} to my {method}."],
    },
    method: "{kind} ending {digits}",
    reasonOne: { "no longer needed": "I no longer need it", "ordered by mistake": "I ordered it by mistake" },
    reasonMany: { "no longer needed": "I no longer need them", "ordered by mistake": "I ordered them by mistake" },
  },
  practice: {
    precondition: ["My user id is {user}. I would like to cancel {order} because {reason}.", "{user} here. Cancel my order {order} please, {reason}."],
    payment: ["My user id is {user}. Please use my {method} for order {order}.", "{user} here. Switch order {order} to my {method} please."],
    multi_cancel: ["My user id is {user}. I would like to cancel {orders} because {reason}.", "{user} here. Cancel my orders {orders} please, {reason}."],
    composite: {
      opening: ["My user id is {user}.", "{user} here."],
      cancel: ["I would like to cancel {order}.", "Cancel my order {order} please."],
      pay: ["Please use my {method} for order {order}.", "Switch order {order} to my {method} please."],
      nextCancel: ["Then cancel {order} too.", "Cancel my order {order} as well."],
      nextPay: ["Then use my {method} for order {order}.", "Switch order {order} to my {method} as well."],
    },
    // The world's own phrases (reasons, payment methods) as the target says them; only the sentences differ.
    method: "{kind} ending {digits}",
    reasonOne: { "no longer needed": "I no longer need it", "ordered by mistake": "I ordered it by mistake" },
    reasonMany: { "no longer needed": "I no longer need them", "ordered by mistake": "I ordered them by mistake" },
  },
};

/**
 * Two-digit numbers for user and order ids. Practice worlds draw from the same range as the target (the same world:
 * a base model has only ever seen these identifiers); their templates differ, and each seed draws a new world.
 */
const ID_RANGES: Record<MiniPhrasing, { min: number; max: number }> = {
  target: { min: 10, max: 59 },
  practice: { min: 10, max: 59 },
};

const NAMES = ["Mia", "Noah", "Sofia", "Liam", "Chen", "Omar", "Yara", "Emma", "Ivan", "Lucas"];
const ITEMS = ["lamp", "mug", "desk", "chair", "kettle", "backpack", "watch", "headphones", "tent", "blender"];

function fill(template: string, slots: { [slot: string]: string }): string {
  return template.replace(/\{(\w+)\}/g, (whole, slot: string) => {
    const value = slots[slot.toLowerCase()];
    if (value === undefined) return whole;
    return slot[0] === slot[0]?.toUpperCase() ? value.charAt(0).toUpperCase() + value.slice(1) : value;
  });
}

/** "#W42", "#W42 and #W17", "#W42, #W17 and #W63". */
function listOrders(ids: readonly string[]): string {
  return ids.length <= 1 ? ids.join("") : `${ids.slice(0, -1).join(", ")} and ${ids[ids.length - 1] ?? ""}`;
}

// --- Generator. ---------------------------------------------------------------------------------------------------

type Random = ReturnType<ModuleSdk["random"]>;

/** Two to four distinct look-alike four-digit strings: a base and copies with two neighbouring digits swapped. */
function lookAlikeDigits(random: Random, count: number): string[] {
  for (;;) {
    const base = String(random.int(1000, 9999));
    const swap = (text: string, at: number) => text.slice(0, at) + (text[at + 1] ?? "") + (text[at] ?? "") + text.slice(at + 2);
    const variants = [base, swap(base, 2), swap(base, 1), swap(base, 0)].slice(0, count);
    if (new Set(variants).size === count) return random.shuffle(variants);
  }
}

function generateWith(options: MiniModuleOptions, seed: number, sdk: ModuleSdk, level: number): ModuleInstance {
  // Seeded through a hash of the module's identity: neighbouring seeds and sibling modules draw unrelated worlds.
  const random = sdk.random(Number.parseInt(sdk.hash({ capability: options.capability, phrasing: options.phrasing, seed }).slice(0, 8), 16));
  const templates = TEMPLATES[options.phrasing];
  const range = ID_RANGES[options.phrasing];
  const family = random.pick(options.families);
  const userId = `u${random.int(range.min, range.max)}`;

  const methods = lookAlikeDigits(random, methodCount(level, random)).map((digits) => {
    const kind = random.next() < 0.7 ? "card" : "gift";
    return { payment_method_id: `${kind}_${digits}`, kind, last_four: digits };
  });
  const methodIds = methods.map((method) => method.payment_method_id);

  const { requested: requestedCount, orders: orderCount } = orderCounts(level, random, family === "multi_cancel" || family === "composite");
  const orderIds = random.shuffle(Array.from({ length: range.max - range.min + 1 }, (_, index) => `#W${range.min + index}`)).slice(0, orderCount);
  const requested = orderIds.slice(0, requestedCount);
  const orders: Row = {};
  for (const id of orderIds) {
    const status = requested.includes(id) ? "pending" : random.pick(["pending", "processed", "delivered"]);
    orders[id] = { user_id: userId, status, item: random.pick(ITEMS), total: random.int(5, 99), payment_method_id: random.pick(methodIds) };
  }
  const first = requested[0] ?? "";
  const firstOrder = orders[first] as Row;
  const reason = random.pick(REASONS);
  const slots: { [slot: string]: string } = { user: userId, order: first, orders: listOrders(requested) };
  const facts: Row = { family, user_id: userId, order_ids: requested };
  const solution: SolutionCall[] = [];
  let mustSay: string[] = [];
  /** A composite request's text, built part by part. */
  let composed: string | undefined;

  if (family === "precondition") {
    const status = drawStatus(random, options.statusShares);
    firstOrder.status = status;
    solution.push({ name: "get_order_details", arguments: { order_id: first } });
    if (status === "pending") solution.push({ name: "cancel_pending_order", arguments: { order_id: first, reason } });
    mustSay = [status === "pending" ? "cancelled" : "cannot"];
    slots.reason = templates.reasonOne[reason] ?? reason;
    facts.status = status;
  } else if (family === "payment") {
    const named = random.pick(options.namedMethodNotFirst === true ? methods.slice(1) : methods);
    // The order is paid with another method, so doing nothing never passes.
    firstOrder.payment_method_id = random.pick(methodIds.filter((id) => id !== named.payment_method_id));
    solution.push({ name: "get_user_details", arguments: { user_id: userId } });
    solution.push({ name: "modify_pending_order_payment", arguments: { order_id: first, payment_method_id: named.payment_method_id } });
    slots.method = fill(templates.method, { kind: named.kind === "gift" ? "gift card" : "card", digits: named.last_four });
    facts.payment_method_id = named.payment_method_id;
    facts.first_payment_method_id = methodIds[0] ?? "";
  } else if (family === "multi_cancel") {
    const say = new Set<string>();
    const statuses: string[] = [];
    for (const id of requested) {
      const status = options.multiCancelChecks === true ? drawStatus(random, undefined) : "pending";
      (orders[id] as Row).status = status;
      statuses.push(status);
      solution.push({ name: "get_order_details", arguments: { order_id: id } });
      if (status === "pending") solution.push({ name: "cancel_pending_order", arguments: { order_id: id, reason } });
      say.add(status === "pending" ? "cancelled" : "cannot");
    }
    if (options.multiCancelChecks === true) {
      mustSay = [...say];
      facts.statuses = statuses;
    }
    slots.reason = templates.reasonMany[reason] ?? reason;
  } else {
    // Each part a cancellation (allowed in about half the draws) or a payment change; never all of one order.
    const sentences = [fill(random.pick(templates.composite.opening), slots)];
    const parts: Row[] = [];
    const say = new Set<string>();
    let lookedUpUser = false;
    for (const [index, id] of requested.entries()) {
      const order = orders[id] as Row;
      if (random.next() < 0.5) {
        const status = drawStatus(random, undefined);
        order.status = status;
        solution.push({ name: "get_order_details", arguments: { order_id: id } });
        if (status === "pending") solution.push({ name: "cancel_pending_order", arguments: { order_id: id, reason } });
        say.add(status === "pending" ? "cancelled" : "cannot");
        sentences.push(fill(random.pick(index === 0 ? templates.composite.cancel : templates.composite.nextCancel), { order: id }));
        parts.push({ kind: "cancel", order_id: id, status });
      } else {
        const named = random.pick(methods);
        order.payment_method_id = random.pick(methodIds.filter((methodId) => methodId !== named.payment_method_id));
        if (!lookedUpUser) solution.push({ name: "get_user_details", arguments: { user_id: userId } });
        lookedUpUser = true;
        solution.push({ name: "modify_pending_order_payment", arguments: { order_id: id, payment_method_id: named.payment_method_id } });
        const method = fill(templates.method, { kind: named.kind === "gift" ? "gift card" : "card", digits: named.last_four });
        sentences.push(fill(random.pick(index === 0 ? templates.composite.pay : templates.composite.nextPay), { order: id, method }));
        parts.push({ kind: "pay", order_id: id, payment_method_id: named.payment_method_id });
      }
    }
    const reasonText = templates.reasonOne[reason] ?? reason;
    if (parts.some((part) => part.kind === "cancel")) sentences.push(`${reasonText.charAt(0).toUpperCase()}${reasonText.slice(1)}.`);
    mustSay = [...say];
    facts.parts = parts;
    // The families whose capability this request exercises: completing every part, and each part's own.
    facts.needs = ["multi_cancel", ...new Set(parts.map((part) => (part.kind === "cancel" ? "precondition" : "payment")))];
    facts.first_payment_method_id = methodIds[0] ?? "";
    composed = sentences.join(" ");
  }
  if (family !== "payment") facts.reason = reason;

  const state: State = {
    users: { [userId]: { name: random.pick(NAMES), payment_methods: methods } },
    orders,
  };
  const request = composed ?? fill(random.pick(templates[family as Exclude<MiniFamily, "composite">]), slots);
  return { state, request, followUps: [], solution, mustSay, facts };
}

// --- Tools' behaviour: pure functions of (state, arguments); existence checks only, the policy is the agent's job. --

function failure(state: State, message: string): ToolOutcome {
  return { output: `Error: ${message}`, error: true, state };
}

/** A JSON value as text: strings as they are, anything else as its JSON (so a wrong-typed argument never matches an id). */
const text = (value: Json | undefined): string => (typeof value === "string" ? value : value === undefined ? "" : JSON.stringify(value));

function runTool(state: State, name: string, args: { [key: string]: Json }): ToolOutcome {
  const users = state.users as { [id: string]: Row };
  const orders = state.orders as { [id: string]: Row };
  const orderId = text(args.order_id);
  switch (name) {
    case "get_user_details": {
      const user = users[text(args.user_id)];
      return user === undefined ? failure(state, "user not found") : { output: JSON.stringify(user), error: false, state };
    }
    case "get_order_details": {
      const order = orders[orderId];
      return order === undefined ? failure(state, "order not found") : { output: JSON.stringify(order), error: false, state };
    }
    case "cancel_pending_order": {
      if (orders[orderId] === undefined) return failure(state, "order not found");
      const reason = text(args.reason);
      if (!(REASONS as readonly string[]).includes(reason)) return failure(state, "invalid reason");
      // No status check, as the brief of this world wants: only the policy forbids cancelling a delivered order.
      const order: Row = { ...orders[orderId], status: "cancelled", cancel_reason: reason };
      return { output: JSON.stringify(order), error: false, state: { ...state, orders: { ...orders, [orderId]: order } } };
    }
    case "modify_pending_order_payment": {
      const current = orders[orderId];
      if (current === undefined) return failure(state, "order not found");
      const owner = users[text(current.user_id)];
      const methodId = text(args.payment_method_id);
      const methods = (owner?.payment_methods ?? []) as Row[];
      if (!methods.some((method) => method.payment_method_id === methodId)) return failure(state, "payment method not found");
      const order: Row = { ...current, payment_method_id: methodId };
      return { output: JSON.stringify(order), error: false, state: { ...state, orders: { ...orders, [orderId]: order } } };
    }
    default:
      return failure(state, `Tool '${name}' not found.`);
  }
}

// --- The module. ----------------------------------------------------------------------------------------------------

/** The share of `requested` orders whose final record equals the expected one; 0 when anything outside them differs. */
function partsDone(finalState: State, expected: State, requested: readonly string[], sdk: ModuleSdk): number {
  const without = (state: State): Json => {
    const orders = { ...((state.orders ?? {}) as Row) };
    for (const id of requested) delete orders[id];
    return { ...state, orders };
  };
  if (sdk.hash(without(finalState)) !== sdk.hash(without(expected))) return 0;
  const record = (state: State, id: string): Json => ((state.orders ?? {}) as Row)[id] ?? null;
  return requested.filter((id) => sdk.hash(record(finalState, id)) === sdk.hash(record(expected, id))).length / requested.length;
}

/** Builds a TRACE-mini module over some families, worded as the target or as practice. */
export function createMiniModule(options: MiniModuleOptions): CapabilityModule {
  const shares = options.statusShares;
  if (shares !== undefined) {
    const values = [shares.pending, shares.processed, shares.delivered];
    if (values.some((share) => !(share >= 0)) || Math.abs(values.reduce((sum, share) => sum + share, 0) - 1) > 1e-9) {
      throw new RangeError(`statusShares ${JSON.stringify(shares)}: expected three shares ≥ 0 summing to 1`);
    }
  }
  const settings: MiniModuleOptions = { ...options, families: [...options.families] };
  return {
    capability: settings.capability,
    description: settings.description,
    policy,
    tools,
    readTools: [...MINI_READ_TOOLS],
    ...(settings.calibrated === true ? { difficulty: { ...MINI_DIFFICULTY } } : {}),
    generate: (seed, sdk, difficulty) => generateWith(settings, seed, sdk, settings.calibrated === true ? (difficulty ?? MINI_DIFFICULTY.initial) : MINI_DIFFICULTY.initial),
    runTool: (state, name, args) => runTool(state, name, args),
    verify(input, sdk): Verdict {
      const { instance, finalState, replies } = input;
      let expected = instance.state;
      for (const call of instance.solution) expected = runTool(expected, call.name, call.arguments).state;
      const said = replies.join("\n").toLowerCase();
      const DB = sdk.hash(finalState) === sdk.hash(expected) ? 1 : 0;
      const COMMUNICATE = instance.mustSay.every((item) => said.includes(item.toLowerCase())) ? 1 : 0;
      const requested = (instance.facts.order_ids as string[] | undefined) ?? [];
      if (settings.reward === "state-then-words") return { reward: (DB + DB * COMMUNICATE) / 2, success: DB * COMMUNICATE === 1, breakdown: { DB, COMMUNICATE } };
      if (settings.reward === undefined || settings.reward === "task" || requested.length < 2) {
        const reward = DB * COMMUNICATE;
        return { reward, success: reward === 1, breakdown: { DB, COMMUNICATE } };
      }
      const PARTS = partsDone(finalState, expected, requested, sdk);
      if (settings.reward === "parts") return { reward: PARTS * COMMUNICATE, success: DB * COMMUNICATE === 1, breakdown: { DB, COMMUNICATE, PARTS } };
      const WORDS = instance.mustSay.length === 0 ? 1 : instance.mustSay.filter((item) => said.includes(item.toLowerCase())).length / instance.mustSay.length;
      return { reward: PARTS * WORDS, success: DB * COMMUNICATE === 1, breakdown: { DB, COMMUNICATE, PARTS, WORDS } };
    },
  };
}

/** The TRACE-mini target world: all three families, target wording and ids. */
const miniService: CapabilityModule = createMiniModule({
  capability: "mini_service",
  description: "A tiny retail customer-service world: cancel orders when the policy allows, change an order's payment method, and finish multi-order requests.",
  families: ["precondition", "payment", "multi_cancel"],
  phrasing: "target",
});

export default miniService;
