/**
 * Capability environment `tool_calling_precision` (τ² retail shapes): the user, identified by name and zip code,
 * asks for one change to one of three pending orders — pay it with a payment method they describe ("my Mastercard
 * ending in 4821") or cancel it for a reason. Ids look alike (card ids sharing digits, order ids differing in one
 * digit) and the cancellation reason must be one of two exact strings, so success needs exactly the right order id
 * (with its '#'), the right payment method id and the exact reason string: a near miss writes the wrong record or is
 * refused.
 *
 * Self-contained: no runtime imports (only types from the SDK contract), all randomness from `sdk.random(seed)`.
 */
import type { CapabilityModule, Json, ModuleInstance, ModuleSdk, ModuleTool, SolutionCall, ToolOutcome } from "../../envs/modules/capability-module.js";

type State = { [key: string]: Json };
type Row = { [key: string]: Json };

/** A JSON value as text: strings as they are, anything else as its JSON (so a wrong-typed argument never matches an id). */
const text = (value: Json | undefined): string => (typeof value === "string" ? value : value === undefined ? "" : JSON.stringify(value));

// --- Tools: a subset of τ²-bench retail's tools, names and parameter schemas verbatim. -----------------------------

const stringProperty = (description: string, title: string): Json => ({ description, title, type: "string" });
const orderIdProperty = stringProperty("The order id, such as '#W0000000'. Be careful there is a '#' symbol at the beginning of the order id.", "Order Id");
const parameters = (properties: { [key: string]: Json }): { [key: string]: Json } => ({ properties, required: Object.keys(properties), title: "parameters", type: "object" });

const tools: ModuleTool[] = [
  {
    type: "function",
    function: {
      name: "find_user_id_by_name_zip",
      description:
        "Find user id by first name, last name, and zip code. If the user is not found, the function\n\nwill return an error message. By default, find user id by email, and only call this function\nif the user is not found by email or cannot remember email.",
      parameters: parameters({
        first_name: stringProperty("The first name of the customer, such as 'John'.", "First Name"),
        last_name: stringProperty("The last name of the customer, such as 'Doe'.", "Last Name"),
        zip: stringProperty("The zip code of the customer, such as '12345'.", "Zip"),
      }),
    },
  },
  {
    type: "function",
    function: {
      name: "get_user_details",
      description: "Get the details of a user, including their orders.",
      parameters: parameters({ user_id: stringProperty("The user id, such as 'sara_doe_496'.", "User Id") }),
    },
  },
  {
    type: "function",
    function: { name: "get_order_details", description: "Get the status and details of an order.", parameters: parameters({ order_id: orderIdProperty }) },
  },
  {
    type: "function",
    function: {
      name: "modify_pending_order_payment",
      description: "Modify the payment method of a pending order. The agent needs to explain the modification detail and ask for explicit user confirmation (yes/no) to proceed.",
      parameters: parameters({
        order_id: orderIdProperty,
        payment_method_id: stringProperty(
          "The payment method id to pay or receive refund for the item price difference, such as 'gift_card_0000000' or 'credit_card_0000000'. These can be looked up from the user or order details.",
          "Payment Method Id",
        ),
      }),
    },
  },
  {
    type: "function",
    function: {
      name: "cancel_pending_order",
      description:
        "Cancel a pending order. If the order is already processed or delivered,\n\nit cannot be cancelled. The agent needs to explain the cancellation detail\nand ask for explicit user confirmation (yes/no) to proceed. If the user confirms,\nthe order status will be changed to 'cancelled' and the payment will be refunded.\nThe refund will be added to the user's gift card balance immediately if the payment\nwas made using a gift card, otherwise the refund would take 5-7 business days to process.\nThe function returns the order details after the cancellation.",
      parameters: parameters({
        order_id: orderIdProperty,
        reason: stringProperty("The reason for cancellation, which should be either 'no longer needed' or 'ordered by mistake'.", "Reason"),
      }),
    },
  },
];

const policy = `# Retail agent policy (pending orders)

At the beginning of the conversation, authenticate the user by locating their user id via email, or via first name,
last name and zip code. Once authenticated, you can look up their orders and payment methods.

Before taking a consequential action that updates the database, list the action details and obtain explicit user
confirmation (yes) to proceed. Use ids exactly as the tools return them (order ids start with '#').

## Cancel pending order
Only a pending order can be cancelled. The user must confirm the order id and the reason, which must be exactly
'no longer needed' or 'ordered by mistake'. The refund goes to the original payment method.

## Modify payment
Only a pending order's payment can be modified, to a single different payment method of the user. A gift card must
have enough balance to cover the order total.`;

// --- Generator. ---------------------------------------------------------------------------------------------------

const FIRST_NAMES = ["Mia", "Noah", "Aarav", "Sofia", "Liam", "Chen", "Amelia", "Omar", "Yara", "Lucas", "Ivan", "Emma"];
const LAST_NAMES = ["Garcia", "Kim", "Patel", "Rossi", "Nguyen", "Smith", "Silva", "Khan", "Lopez", "Brown"];
const PRODUCTS = ["desk lamp", "water bottle", "mechanical keyboard", "hiking backpack", "coffee maker", "yoga mat", "smart watch", "air purifier"];

function generate(seed: number, sdk: ModuleSdk): ModuleInstance {
  const random = sdk.random(seed);
  const first = random.pick(FIRST_NAMES);
  const last = random.pick(LAST_NAMES);
  const userId = `${first.toLowerCase()}_${last.toLowerCase()}_${random.int(1000, 9999)}`;
  const zip = text(random.int(10000, 99999));
  // Look-alike ids: both cards share a 5-digit stem; orders share a 6-digit stem.
  const cardStem = random.int(10000, 99999);
  const [visaTail, masterTail] = random.shuffle([10, 23, 45, 67, 89]) as [number, number];
  const visaId = `credit_card_${cardStem}${visaTail}`;
  const masterId = `credit_card_${cardStem}${masterTail}`;
  const giftId = `gift_card_${random.int(1000000, 9999999)}`;
  const paypalId = `paypal_${random.int(1000000, 9999999)}`;
  const methods: { [id: string]: Row } = {
    [visaId]: { source: "credit_card", id: visaId, brand: "visa", last_four: text(random.int(1000, 9999)) },
    [masterId]: { source: "credit_card", id: masterId, brand: "mastercard", last_four: text(random.int(1000, 9999)) },
    [giftId]: { source: "gift_card", id: giftId, balance: random.int(0, 1) === 0 ? random.int(5, 20) : random.int(600, 900) },
    [paypalId]: { source: "paypal", id: paypalId },
  };
  const orderStem = random.int(100000, 999999);
  const products = random.shuffle(PRODUCTS).slice(0, 3);
  const orders: { [id: string]: Json } = {};
  const orderIds: string[] = [];
  for (const [index, product] of products.entries()) {
    const orderId = `#W${orderStem}${index + random.int(0, 2) * 3}`;
    const price = random.int(2000, 50000) / 100;
    const paidWith = random.pick([visaId, masterId, paypalId]);
    orderIds.push(orderId);
    orders[orderId] = {
      order_id: orderId,
      user_id: userId,
      status: "pending",
      items: [{ name: product, product_id: text(random.int(1000000000, 9999999999)), item_id: text(random.int(1000000000, 9999999999)), price, options: {} }],
      payment_history: [{ transaction_type: "payment", amount: price, payment_method_id: paidWith }],
    };
  }
  const state: State = {
    users: { [userId]: { user_id: userId, name: { first_name: first, last_name: last }, address: { city: "Springfield", zip }, payment_methods: methods, orders: orderIds } },
    orders,
  };
  const targetIndex = random.int(0, 2);
  const orderId = orderIds[targetIndex]!;
  const product = products[targetIndex]!;
  const order = orders[orderId] as Row;
  const current = ((order.payment_history as Row[])[0] as Row).payment_method_id as string;
  const reads: SolutionCall[] = [
    { name: "find_user_id_by_name_zip", arguments: { first_name: first, last_name: last, zip } },
    { name: "get_user_details", arguments: { user_id: userId } },
    ...orderIds.map((id) => ({ name: "get_order_details", arguments: { order_id: id } })),
  ];
  // Change payment to a described method that differs from the current one (a gift card only when its balance covers it).
  const total = ((order.items as Row[])[0] as Row).price as number;
  const candidates = [visaId, masterId, paypalId, ...((methods[giftId]!.balance as number) >= total ? [giftId] : [])].filter((id) => id !== current);
  const describe = (id: string) => {
    const method = methods[id]!;
    if (method.source === "credit_card") return `my ${method.brand === "visa" ? "Visa" : "Mastercard"} ending in ${text(method.last_four)}`;
    return method.source === "gift_card" ? "my gift card" : "my PayPal account";
  };
  const common = { state, followUps: ["Yes, that's right, please go ahead.", "Great, thanks."], mustSay: [] as string[] };
  if (random.next() < 0.5) {
    const target = random.pick(candidates);
    return {
      ...common,
      request: `Hi, I'm ${first} ${last}, zip code ${zip}. For my pending order with the ${product}, I'd like to pay with ${describe(target)} instead.`,
      solution: [...reads, { name: "modify_pending_order_payment", arguments: { order_id: orderId, payment_method_id: target } }],
      facts: { action: "modify_pending_order_payment", order_id: orderId, payment_method_id: target },
    };
  }
  const reason = random.pick(["no longer needed", "ordered by mistake"]);
  const phrase = reason === "no longer needed" ? "I don't need it anymore" : "I ordered it by mistake";
  return {
    ...common,
    request: `Hi, I'm ${first} ${last}, zip code ${zip}. Please cancel my pending order with the ${product}; ${phrase}.`,
    solution: [...reads, { name: "cancel_pending_order", arguments: { order_id: orderId, reason } }],
    facts: { action: "cancel_pending_order", order_id: orderId, reason },
  };
}

// --- Tools' behaviour (refusals worded as τ²-bench's retail tools word them). ---------------------------------------

function failure(state: State, message: string): ToolOutcome {
  return { output: `Error: ${message}`, error: true, state };
}

function runTool(state: State, name: string, args: { [key: string]: Json }, sdk: ModuleSdk): ToolOutcome {
  const users = state.users as { [id: string]: Row };
  const orders = state.orders as { [id: string]: Row };
  switch (name) {
    case "find_user_id_by_name_zip": {
      for (const user of Object.values(users)) {
        const userName = user.name as Row;
        if (text(userName.first_name).toLowerCase() === text(args.first_name).toLowerCase() && text(userName.last_name).toLowerCase() === text(args.last_name).toLowerCase() && (user.address as Row).zip === args.zip) {
          return { output: user.user_id as string, error: false, state };
        }
      }
      return failure(state, "User not found");
    }
    case "get_user_details": {
      const user = users[text(args.user_id)];
      return user === undefined ? failure(state, "User not found") : { output: JSON.stringify(user), error: false, state };
    }
    case "get_order_details": {
      const order = orders[text(args.order_id)];
      return order === undefined ? failure(state, "Order not found") : { output: JSON.stringify(order), error: false, state };
    }
    case "modify_pending_order_payment":
    case "cancel_pending_order": {
      const orderId = text(args.order_id);
      if (orders[orderId] === undefined) return failure(state, "Order not found");
      if (orders[orderId].status !== "pending") return failure(state, "Non-pending order cannot be modified");
      const next = JSON.parse(sdk.canonical(state)) as State;
      const order = (next.orders as { [id: string]: Row })[orderId]!;
      const methods = ((next.users as { [id: string]: Row })[order.user_id as string] as Row).payment_methods as { [id: string]: Row };
      const history = order.payment_history as Row[];
      const paid = history[0] as Row;
      const amount = paid.amount as number;
      if (name === "cancel_pending_order") {
        if (args.reason !== "no longer needed" && args.reason !== "ordered by mistake") return failure(state, "Invalid reason");
        history.push({ transaction_type: "refund", amount, payment_method_id: paid.payment_method_id as string });
        order.status = "cancelled";
        order.cancel_reason = args.reason;
        return { output: JSON.stringify(order), error: false, state: next };
      }
      const methodId = text(args.payment_method_id);
      const method = methods[methodId];
      if (method === undefined) return failure(state, "Payment method not found");
      if (history.length > 1) return failure(state, "There should be exactly one payment for a pending order");
      if (methodId === paid.payment_method_id) return failure(state, "The new payment method should be different from the current one");
      if (method.source === "gift_card") {
        if ((method.balance as number) < amount) return failure(state, "Insufficient gift card balance to pay for the order");
        method.balance = Math.round(((method.balance as number) - amount) * 100) / 100;
      }
      history.push({ transaction_type: "payment", amount, payment_method_id: methodId }, { transaction_type: "refund", amount, payment_method_id: paid.payment_method_id as string });
      return { output: JSON.stringify(order), error: false, state: next };
    }
    default:
      return failure(state, `Tool '${name}' not found.`);
  }
}

// --- Verifier: the exact write call happened, and the final state equals the ground truth's. ------------------------

const module: CapabilityModule = {
  capability: "tool_calling_precision",
  description: "Calling tools with exactly the right identifiers and argument values (order ids with '#', the payment method the user describes, enumerated reason strings).",
  policy,
  tools,
  readTools: ["find_user_id_by_name_zip", "get_user_details", "get_order_details"],
  generate,
  runTool,
  verify(input, sdk) {
    const { instance, calls, finalState } = input;
    let expected = instance.state;
    for (const call of instance.solution) expected = runTool(expected, call.name, call.arguments, sdk).state;
    const write = instance.solution[instance.solution.length - 1]!;
    const exactCall = calls.some((call) => !call.error && call.name === write.name && sdk.canonical(call.arguments) === sdk.canonical(write.arguments));
    // Wrong-id writes that went through (another order, another card) show up here.
    const writes = calls.filter((call) => !call.error && !["find_user_id_by_name_zip", "get_user_details", "get_order_details"].includes(call.name)).length;
    const breakdown = {
      arguments: exactCall ? 1 : 0,
      no_stray_writes: exactCall && writes === 1 ? 1 : 0,
      state: sdk.hash(finalState) === sdk.hash(expected) ? 1 : 0,
    };
    const reward = (breakdown.arguments + breakdown.no_stray_writes + breakdown.state) / 3;
    return { reward, success: reward === 1, breakdown };
  },
};

export default module;
