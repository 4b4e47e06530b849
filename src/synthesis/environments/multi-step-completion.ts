/**
 * Capability environment `multi_step_completion` (τ² airline shapes): the user asks for three changes on three
 * reservations — add checked bags to one, correct a passenger's name on another, cancel a third (booked today, so
 * allowed) — two in the first message and the last one only later, after the agent's first reply. Each request is
 * easy alone; success needs all three done, so an agent that stops after the first change, or forgets the late
 * request, fails. Reward is the fraction of requests done, success all of them with no other change.
 *
 * Self-contained: no runtime imports (only types from the SDK contract), all randomness from `sdk.random(seed)`.
 */
import type { CapabilityModule, Json, ModuleInstance, ModuleSdk, ModuleTool, SolutionCall, ToolOutcome } from "../../envs/modules/capability-module.js";

type State = { [key: string]: Json };
type Row = { [key: string]: Json };

/** A JSON value as text: strings as they are, anything else as its JSON (so a wrong-typed argument never matches an id). */
const text = (value: Json | undefined): string => (typeof value === "string" ? value : value === undefined ? "" : JSON.stringify(value));

// --- Tools: a subset of τ²-bench airline's tools, names and parameter schemas verbatim. ----------------------------

const stringProperty = (description: string, title: string): Json => ({ description, title, type: "string" });
const integerProperty = (description: string, title: string): Json => ({ description, title, type: "integer" });
const parameters = (properties: { [key: string]: Json }, extra: { [key: string]: Json } = {}): { [key: string]: Json } => ({
  ...extra,
  properties,
  required: Object.keys(properties),
  title: "parameters",
  type: "object",
});

const tools: ModuleTool[] = [
  {
    type: "function",
    function: { name: "get_user_details", description: "Get the details of a user, including their reservations.", parameters: parameters({ user_id: stringProperty("The user ID, such as 'sara_doe_496'.", "User Id") }) },
  },
  {
    type: "function",
    function: { name: "get_reservation_details", description: "Get the details of a reservation.", parameters: parameters({ reservation_id: stringProperty("The reservation ID, such as '8JX2WO'.", "Reservation Id") }) },
  },
  {
    type: "function",
    function: { name: "cancel_reservation", description: "Cancel the whole reservation.", parameters: parameters({ reservation_id: stringProperty("The reservation ID, such as 'ZFA04Y'.", "Reservation Id") }) },
  },
  {
    type: "function",
    function: {
      name: "update_reservation_baggages",
      description: "Update the baggage information of a reservation.",
      parameters: parameters({
        reservation_id: stringProperty("The reservation ID, such as 'ZFA04Y'", "Reservation Id"),
        total_baggages: integerProperty("The updated total number of baggage items included in the reservation.", "Total Baggages"),
        nonfree_baggages: integerProperty("The updated number of non-free baggage items included in the reservation.", "Nonfree Baggages"),
        payment_id: stringProperty("The payment id stored in user profile, such as 'credit_card_7815826', 'gift_card_7815826', 'certificate_7815826'.", "Payment Id"),
      }),
    },
  },
  {
    type: "function",
    function: {
      name: "update_reservation_passengers",
      description: "Update the passenger information of a reservation.",
      parameters: parameters(
        {
          reservation_id: stringProperty("The reservation ID, such as 'ZFA04Y'.", "Reservation Id"),
          passengers: {
            description: "An array of objects containing details about each passenger.",
            items: { anyOf: [{ $ref: "#/$defs/Passenger" }, { type: "object" }] },
            title: "Passengers",
            type: "array",
          },
        },
        {
          $defs: {
            Passenger: {
              ...parameters({
                first_name: stringProperty("Passenger's first name", "First Name"),
                last_name: stringProperty("Passenger's last name", "Last Name"),
                dob: stringProperty("Date of birth in YYYY-MM-DD format", "Dob"),
              }),
              title: "Passenger",
            },
          },
        },
      ),
    },
  },
];

const policy = `# Airline agent policy (changing reservations)

The current time is 2024-05-15 15:00:00 EST.

Before taking any action that updates the booking database, you must list the action details and obtain explicit user
confirmation (yes) to proceed. Authenticate the user by user id before acting. Handle every request the user makes,
one after the other, until all are done.

## Checked bags
The user can add but not remove checked bags. Free checked bags per passenger: regular members 0 in basic economy, 1
in economy, 2 in business; silver members one more; gold members two more. In this conversation the reservation's free
allowance is already used by its current bags, so every added bag is non-free ($50 each), paid with a payment method
from the user's profile: total_baggages and nonfree_baggages each grow by the number of added bags.

## Passengers
The user can correct passenger names or dates of birth, but cannot change the number of passengers. Send the whole
passenger list, in the same order, with the correction applied.

## Cancel
A reservation booked within the last 24 hours can be cancelled; the refund goes to the original payment methods.`;

// --- Generator. ---------------------------------------------------------------------------------------------------

const FIRST_NAMES = ["Mia", "Noah", "Aarav", "Sofia", "Liam", "Chen", "Amelia", "Omar", "Yara", "Lucas", "Ivan", "Emma"];
const LAST_NAMES = ["Garcia", "Kim", "Patel", "Rossi", "Nguyen", "Smith", "Silva", "Khan", "Lopez", "Brown"];
const AIRPORTS = ["JFK", "LAX", "SFO", "ORD", "SEA", "BOS", "MIA", "DEN", "ATL", "PHX"];
const ID_LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZ0123456789";
const MISSPELLINGS: { [name: string]: string } = { Mia: "Mya", Noah: "Noa", Aarav: "Arav", Sofia: "Sophia", Liam: "Lyam", Chen: "Chan", Amelia: "Emelia", Omar: "Omer", Yara: "Yarah", Lucas: "Lukas", Ivan: "Ivann", Emma: "Ema" };

function generate(seed: number, sdk: ModuleSdk): ModuleInstance {
  const random = sdk.random(seed);
  const first = random.pick(FIRST_NAMES);
  const last = random.pick(LAST_NAMES);
  const userId = `${first.toLowerCase()}_${last.toLowerCase()}_${random.int(100, 999)}`;
  const cardId = `credit_card_${random.int(1000000, 9999999)}`;
  const ids: string[] = [];
  while (ids.length < 3) {
    const id = Array.from({ length: 6 }, () => random.pick([...ID_LETTERS])).join("");
    if (!ids.includes(id)) ids.push(id);
  }
  const [bagsId, namesId, cancelId] = ids as [string, string, string];
  const reservations: { [id: string]: Json } = {};
  const companions = random.shuffle(FIRST_NAMES.filter((name) => name !== first)).slice(0, 2);
  for (const id of ids) {
    const [origin, destination] = random.shuffle(AIRPORTS) as [string, string];
    const price = random.int(90, 700);
    const passengers: Row[] = [{ first_name: first, last_name: last, dob: `19${random.int(60, 99)}-0${random.int(1, 9)}-1${random.int(0, 9)}` }];
    // The reservation whose name gets corrected has a companion whose first name was misspelled at booking.
    if (id === namesId) passengers.push({ first_name: MISSPELLINGS[companions[0]!]!, last_name: last, dob: `19${random.int(60, 99)}-1${random.int(0, 2)}-0${random.int(1, 9)}` });
    const bags = random.int(0, 2);
    reservations[id] = {
      reservation_id: id,
      user_id: userId,
      origin,
      destination,
      flight_type: "one_way",
      cabin: random.pick(["economy", "business"]),
      flights: [{ flight_number: `HAT${text(random.int(1, 299)).padStart(3, "0")}`, date: `2024-05-${random.int(17, 30)}`, origin, destination, price }],
      passengers,
      payment_history: [{ payment_id: cardId, amount: price * passengers.length }],
      created_at: id === cancelId ? `2024-05-15T0${random.int(1, 9)}:00:00` : `2024-04-${random.int(10, 28)}T09:00:00`,
      total_baggages: bags,
      nonfree_baggages: 0,
      insurance: "no",
      status: null,
    };
  }
  const state: State = {
    users: {
      [userId]: {
        user_id: userId,
        name: { first_name: first, last_name: last },
        membership: random.pick(["regular", "silver", "gold"]),
        payment_methods: { [cardId]: { source: "credit_card", id: cardId, brand: "visa", last_four: text(random.int(1000, 9999)) } },
        reservations: ids,
      },
    },
    reservations,
  };
  const added = random.int(1, 3);
  const bagsReservation = reservations[bagsId] as Row;
  const namesPassengers = (reservations[namesId] as Row).passengers as Row[];
  const corrected = namesPassengers.map((passenger, index) => (index === 1 ? { ...passenger, first_name: companions[0]! } : passenger));
  const requests = {
    bags: `add ${added} checked bag${added > 1 ? "s" : ""} to reservation ${bagsId}, paid with my credit card`,
    names: `fix my companion's first name on reservation ${namesId}: it should be ${companions[0]!}, not ${MISSPELLINGS[companions[0]!]!}`,
    cancel: `cancel reservation ${cancelId}, which I booked this morning`,
  };
  // Which request arrives late varies by seed; the solution handles them in the order they are asked.
  const order = random.shuffle(["bags", "names", "cancel"] as const);
  const writes: { [key: string]: SolutionCall } = {
    bags: {
      name: "update_reservation_baggages",
      arguments: { reservation_id: bagsId, total_baggages: (bagsReservation.total_baggages as number) + added, nonfree_baggages: (bagsReservation.nonfree_baggages as number) + added, payment_id: cardId },
    },
    names: { name: "update_reservation_passengers", arguments: { reservation_id: namesId, passengers: corrected } },
    cancel: { name: "cancel_reservation", arguments: { reservation_id: cancelId } },
  };
  return {
    state,
    request: `Hi, my user id is ${userId}. I have a few things: please ${requests[order[0]!]}, and also ${requests[order[1]!]}.`,
    followUps: [`Yes, go ahead. Oh, and one more thing: please also ${requests[order[2]!]}.`, "Yes, please do that too.", "Thanks, that's everything."],
    solution: [{ name: "get_user_details", arguments: { user_id: userId } }, ...ids.map((id) => ({ name: "get_reservation_details", arguments: { reservation_id: id } })), ...order.map((key) => writes[key]!)],
    mustSay: [],
    facts: { bags_reservation: bagsId, names_reservation: namesId, cancel_reservation: cancelId },
  };
}

// --- Tools' behaviour. -----------------------------------------------------------------------------------------------

function failure(state: State, message: string): ToolOutcome {
  return { output: `Error: ${message}`, error: true, state };
}

function runTool(state: State, name: string, args: { [key: string]: Json }, sdk: ModuleSdk): ToolOutcome {
  const users = state.users as { [id: string]: Row };
  const reservations = state.reservations as { [id: string]: Row };
  if (name === "get_user_details") {
    const user = users[text(args.user_id)];
    return user === undefined ? failure(state, "User not found") : { output: JSON.stringify(user), error: false, state };
  }
  if (!["get_reservation_details", "cancel_reservation", "update_reservation_baggages", "update_reservation_passengers"].includes(name)) return failure(state, `Tool '${name}' not found.`);
  const id = text(args.reservation_id);
  if (reservations[id] === undefined) return failure(state, "Reservation not found");
  if (name === "get_reservation_details") return { output: JSON.stringify(reservations[id]), error: false, state };
  const next = JSON.parse(sdk.canonical(state)) as State;
  const reservation = (next.reservations as { [id: string]: Row })[id]!;
  const history = reservation.payment_history as Row[];
  if (name === "cancel_reservation") {
    reservation.payment_history = [...history, ...history.map((payment) => ({ payment_id: payment.payment_id as string, amount: 0 - (payment.amount as number) }))];
    reservation.status = "cancelled";
  } else if (name === "update_reservation_baggages") {
    const total = Number(args.total_baggages);
    const nonfree = Number(args.nonfree_baggages);
    if (!Number.isInteger(total) || !Number.isInteger(nonfree) || total < (reservation.total_baggages as number) || nonfree < (reservation.nonfree_baggages as number) || nonfree > total) {
      return failure(state, "Invalid baggage counts: bags can only be added");
    }
    const methods = (users[reservation.user_id as string] as Row).payment_methods as { [id: string]: Row };
    if (methods[text(args.payment_id)] === undefined) return failure(state, "Payment method not found");
    const charge = 50 * (nonfree - (reservation.nonfree_baggages as number));
    reservation.total_baggages = total;
    reservation.nonfree_baggages = nonfree;
    if (charge > 0) history.push({ payment_id: text(args.payment_id), amount: charge });
  } else {
    const passengers = Array.isArray(args.passengers) ? (args.passengers as Row[]) : [];
    if (passengers.length !== (reservation.passengers as Json[]).length) return failure(state, "Number of passengers does not match");
    reservation.passengers = passengers.map((passenger) => ({ first_name: text(passenger.first_name), last_name: text(passenger.last_name), dob: text(passenger.dob) }));
  }
  return { output: JSON.stringify(reservation), error: false, state: next };
}

// --- Verifier: one component per request (that reservation equals the ground truth's), plus the whole state. --------

const module: CapabilityModule = {
  capability: "multi_step_completion",
  description: "Completing every part of a multi-part request, including parts that arrive later in the conversation, instead of stopping after the first action.",
  policy,
  tools,
  readTools: ["get_user_details", "get_reservation_details"],
  generate,
  runTool,
  verify(input, sdk) {
    const { instance, finalState } = input;
    let expected = instance.state;
    for (const call of instance.solution) expected = runTool(expected, call.name, call.arguments, sdk).state;
    const same = (id: string) =>
      sdk.canonical((finalState.reservations as { [id: string]: Json } | undefined)?.[id] ?? null) === sdk.canonical((expected.reservations as { [id: string]: Json })[id] ?? null) ? 1 : 0;
    const breakdown = {
      bags: same(instance.facts.bags_reservation as string),
      names: same(instance.facts.names_reservation as string),
      cancel: same(instance.facts.cancel_reservation as string),
      state: sdk.hash(finalState) === sdk.hash(expected) ? 1 : 0,
    };
    const reward = (breakdown.bags + breakdown.names + breakdown.cancel) / 3;
    return { reward, success: reward === 1 && breakdown.state === 1, breakdown };
  },
};

export default module;
