/**
 * Capability environment `precondition_verification` (τ² airline shapes): the user asks to cancel two or three
 * reservations; the policy allows a cancellation only when its preconditions hold, and at least one request is
 * eligible and at least one is not. Success needs every eligible reservation cancelled and every ineligible one left
 * alone, so neither "do what the user says" nor "refuse everything" works: the agent must look each reservation up
 * (cabin, booking time, insurance, flight status) and check the policy before each write.
 *
 * Self-contained: no runtime imports (only types from the SDK contract), all randomness from `sdk.random(seed)`.
 */
import type { CapabilityModule, Json, ModuleInstance, ModuleSdk, ModuleTool, SolutionCall, ToolOutcome } from "../../envs/modules/capability-module.js";

type State = { [key: string]: Json };
type Row = { [key: string]: Json };

// --- Tools: a subset of τ²-bench airline's tools, names and parameter schemas verbatim. --------------------------

const reservationIdProperty = (example: string): { [key: string]: Json } => ({
  description: `The reservation ID, such as '${example}'.`,
  title: "Reservation Id",
  type: "string",
});

const tools: ModuleTool[] = [
  {
    type: "function",
    function: {
      name: "get_user_details",
      description: "Get the details of a user, including their reservations.",
      parameters: {
        properties: { user_id: { description: "The user ID, such as 'sara_doe_496'.", title: "User Id", type: "string" } },
        required: ["user_id"],
        title: "parameters",
        type: "object",
      },
    },
  },
  {
    type: "function",
    function: {
      name: "get_reservation_details",
      description: "Get the details of a reservation.",
      parameters: { properties: { reservation_id: reservationIdProperty("8JX2WO") }, required: ["reservation_id"], title: "parameters", type: "object" },
    },
  },
  {
    type: "function",
    function: {
      name: "get_flight_status",
      description: "Get the status of a flight.",
      parameters: {
        properties: {
          flight_number: { description: "The flight number.", title: "Flight Number", type: "string" },
          date: { description: "The date of the flight.", title: "Date", type: "string" },
        },
        required: ["flight_number", "date"],
        title: "parameters",
        type: "object",
      },
    },
  },
  {
    type: "function",
    function: {
      name: "cancel_reservation",
      description: "Cancel the whole reservation.",
      parameters: { properties: { reservation_id: reservationIdProperty("ZFA04Y") }, required: ["reservation_id"], title: "parameters", type: "object" },
    },
  },
];

// --- Policy: the part of τ²'s airline policy this capability exercises. ------------------------------------------

const policy = `# Airline agent policy (cancellations)

The current time is 2024-05-15 15:00:00 EST.

Before taking any action that updates the booking database, you must list the action details and obtain explicit user
confirmation (yes) to proceed. Authenticate the user by user id before acting.

## Cancel flight
First obtain the user id and the reservation id, and the reason for cancellation (change of plan, airline cancelled
flight, or other reasons such as health or weather).

A reservation can be cancelled only if none of its flights has been flown yet, and at least one of these holds:
- the booking was made within the last 24 hours;
- the flight was cancelled by the airline;
- it is a business flight;
- the user has travel insurance and the reason for cancellation is covered by insurance (health or weather).

If none holds, or a flight has already been flown, do not cancel; explain to the user why it cannot be cancelled.
The API does not check these rules for you: you must check them before calling cancel_reservation.
The refund goes to the original payment methods.`;

// --- Generator. ---------------------------------------------------------------------------------------------------

const FIRST_NAMES = ["Mia", "Noah", "Aarav", "Sofia", "Liam", "Chen", "Amelia", "Omar", "Yara", "Lucas", "Ivan", "Emma"];
const LAST_NAMES = ["Garcia", "Kim", "Patel", "Rossi", "Nguyen", "Smith", "Silva", "Khan", "Müller", "Lopez"];
const AIRPORTS = ["JFK", "LAX", "SFO", "ORD", "SEA", "BOS", "MIA", "DEN", "ATL", "PHX"];
const ID_LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZ0123456789";

/** Why a reservation is (not) cancellable; each kind fixes the reservation's fields and the user's stated reason. */
type Kind = "booked_recently" | "business" | "insured_health" | "airline_cancelled" | "old_economy" | "insured_change_of_plan" | "already_flown";
const ELIGIBLE: Kind[] = ["booked_recently", "business", "insured_health", "airline_cancelled"];
const INELIGIBLE: Kind[] = ["old_economy", "insured_change_of_plan", "already_flown"];

function generate(seed: number, sdk: ModuleSdk): ModuleInstance {
  const random = sdk.random(seed);
  const first = random.pick(FIRST_NAMES);
  const last = random.pick(LAST_NAMES);
  const userId = `${first.toLowerCase()}_${last.toLowerCase().replace("ü", "u")}_${random.int(100, 999)}`;
  const cardId = `credit_card_${random.int(1000000, 9999999)}`;
  const count = random.int(2, 3);
  // At least one eligible and one ineligible request, in random order.
  const kinds = random.shuffle([
    random.pick(ELIGIBLE),
    random.pick(INELIGIBLE),
    ...(count === 3 ? [random.pick([...ELIGIBLE, ...INELIGIBLE])] : []),
  ]);
  const reservations: { [key: string]: Json } = {};
  const flights: { [key: string]: Json } = {};
  const requested: { id: string; kind: Kind; reason: string }[] = [];
  for (const kind of kinds) {
    let id = "";
    do {
      id = Array.from({ length: 6 }, () => random.pick([...ID_LETTERS])).join("");
    } while (id in reservations);
    const [origin, destination] = random.shuffle(AIRPORTS) as [string, string];
    const flightNumber = `HAT${String(random.int(1, 299)).padStart(3, "0")}`;
    // Past flights are flown ("landed"); upcoming ones are "available" unless the airline cancelled them.
    const date = kind === "already_flown" ? `2024-05-${String(random.int(10, 14)).padStart(2, "0")}` : `2024-05-${random.int(17, 28)}`;
    const status = kind === "already_flown" ? "landed" : kind === "airline_cancelled" ? "cancelled" : "available";
    flights[`${flightNumber}/${date}`] = { flight_number: flightNumber, date, status };
    const createdAt = kind === "booked_recently" ? `2024-05-15T${String(random.int(0, 13)).padStart(2, "0")}:12:00` : `2024-05-0${random.int(1, 9)}T10:30:00`;
    const cabin = kind === "business" || (kind === "already_flown" && random.next() < 0.5) ? "business" : random.pick(["economy", "basic_economy"]);
    const insured = kind === "insured_health" || kind === "insured_change_of_plan";
    const price = random.int(80, 900);
    reservations[id] = {
      reservation_id: id,
      user_id: userId,
      origin,
      destination,
      flight_type: "one_way",
      cabin,
      flights: [{ flight_number: flightNumber, date, origin, destination, price }],
      passengers: [{ first_name: first, last_name: last, dob: `19${random.int(60, 99)}-0${random.int(1, 9)}-1${random.int(0, 9)}` }],
      payment_history: [{ payment_id: cardId, amount: price + (insured ? 30 : 0) }],
      created_at: createdAt,
      total_baggages: 0,
      nonfree_baggages: 0,
      insurance: insured ? "yes" : "no",
      status: null,
    };
    const reason =
      kind === "insured_health" ? "I got sick and can't travel" : kind === "airline_cancelled" ? "the airline cancelled my flight" : random.pick(["my plans changed", "I don't need the trip anymore"]);
    requested.push({ id, kind, reason });
  }
  const state: State = {
    users: {
      [userId]: {
        user_id: userId,
        name: { first_name: first, last_name: last },
        membership: random.pick(["regular", "silver", "gold"]),
        payment_methods: { [cardId]: { source: "credit_card", id: cardId, brand: "visa", last_four: String(random.int(1000, 9999)) } },
        reservations: Object.keys(reservations),
      },
    },
    reservations,
    flights,
  };
  const eligible = requested.filter((entry) => ELIGIBLE.includes(entry.kind));
  const solution: SolutionCall[] = [{ name: "get_user_details", arguments: { user_id: userId } }];
  for (const entry of requested) {
    solution.push({ name: "get_reservation_details", arguments: { reservation_id: entry.id } });
    const flight = (reservations[entry.id] as { flights: Row[] }).flights[0] as Row;
    if (entry.kind === "airline_cancelled") solution.push({ name: "get_flight_status", arguments: { flight_number: flight.flight_number as string, date: flight.date as string } });
  }
  for (const entry of eligible) solution.push({ name: "cancel_reservation", arguments: { reservation_id: entry.id } });
  const asks = requested.map((entry) => `${entry.id} (${entry.reason})`).join(" and ");
  return {
    state,
    request: `Hi, I'm ${first} ${last}, my user id is ${userId}. I need to cancel my reservations ${asks}.`,
    followUps: ["Yes, please go ahead and cancel whatever you can.", "Okay, thanks."],
    solution,
    mustSay: [],
    facts: { user_id: userId, eligible: eligible.map((entry) => entry.id), ineligible: requested.filter((entry) => !ELIGIBLE.includes(entry.kind)).map((entry) => entry.id) },
  };
}

// --- Tools' behaviour: pure functions of (state, arguments). -------------------------------------------------------

function failure(state: State, message: string): ToolOutcome {
  return { output: `Error: ${message}`, error: true, state };
}

function runTool(state: State, name: string, args: { [key: string]: Json }, sdk: ModuleSdk): ToolOutcome {
  const users = state.users as { [id: string]: Row };
  const reservations = state.reservations as { [id: string]: Row };
  const flights = state.flights as { [key: string]: Row };
  const text = (value: Json | undefined) => (typeof value === "string" ? value : "");
  switch (name) {
    case "get_user_details": {
      const user = users[text(args.user_id)];
      return user === undefined ? failure(state, "User not found") : { output: JSON.stringify(user), error: false, state };
    }
    case "get_reservation_details": {
      const reservation = reservations[text(args.reservation_id)];
      return reservation === undefined ? failure(state, "Reservation not found") : { output: JSON.stringify(reservation), error: false, state };
    }
    case "get_flight_status": {
      const flight = flights[`${text(args.flight_number)}/${text(args.date)}`];
      return flight === undefined ? failure(state, "Flight not found") : { output: JSON.stringify(flight.status), error: false, state };
    }
    case "cancel_reservation": {
      const id = text(args.reservation_id);
      if (reservations[id] === undefined) return failure(state, "Reservation not found");
      // Copy before writing: state is a value, never mutated in place.
      const next = JSON.parse(sdk.canonical(state)) as State;
      const reservation = (next.reservations as { [id: string]: Row })[id] as Row;
      const history = reservation.payment_history as Row[];
      reservation.payment_history = [...history, ...history.map((payment) => ({ payment_id: payment.payment_id as string, amount: 0 - (payment.amount as number) }))];
      reservation.status = "cancelled";
      return { output: JSON.stringify(reservation), error: false, state: next };
    }
    default:
      return failure(state, `Tool '${name}' not found.`);
  }
}

// --- Verifier: per requested reservation, the right outcome; and no other change to the state. ---------------------

const module: CapabilityModule = {
  capability: "precondition_verification",
  description: "Checking the policy's preconditions (booking time, cabin, insurance and reason, flight status) before a write, acting when they hold and refusing when they do not.",
  policy,
  tools,
  readTools: ["get_user_details", "get_reservation_details", "get_flight_status"],
  generate,
  runTool,
  verify(input, sdk) {
    const { instance, finalState } = input;
    let expected = instance.state;
    for (const call of instance.solution) expected = runTool(expected, call.name, call.arguments, sdk).state;
    const status = (id: string) => ((finalState.reservations as { [id: string]: Row } | undefined)?.[id]?.status ?? null);
    const breakdown: { [key: string]: number } = {};
    for (const id of instance.facts.eligible as string[]) breakdown[`cancelled_${id}`] = status(id) === "cancelled" ? 1 : 0;
    for (const id of instance.facts.ineligible as string[]) breakdown[`kept_${id}`] = status(id) === null ? 1 : 0;
    // Catches extra writes (cancelling twice, unrequested reservations).
    breakdown.state = sdk.hash(finalState) === sdk.hash(expected) ? 1 : 0;
    const scores = Object.values(breakdown);
    const reward = scores.reduce((sum, value) => sum + value, 0) / scores.length;
    return { reward, success: scores.every((value) => value === 1), breakdown };
  },
};

export default module;
