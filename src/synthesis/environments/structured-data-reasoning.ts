/**
 * Capability environment `structured_data_reasoning` (τ² airline shapes): the user wants a one-way flight for
 * themself in a given cabin and states a selection rule ("the cheapest one leaving after 14:00", "the earliest one
 * under $400"). The direct-flight search returns five to seven flights with decoys: a cheaper flight that breaks the
 * time rule, a flight with no seat left in that cabin, prices that only order differently per cabin. Success needs
 * the one flight that satisfies the rule booked with the exact total price, so the agent must filter and compare the
 * structured search results instead of picking the first or the cheapest-looking row.
 *
 * Self-contained: no runtime imports (only types from the SDK contract), all randomness from `sdk.random(seed)`.
 */
import type { CapabilityModule, Json, ModuleInstance, ModuleSdk, ModuleTool, ToolOutcome } from "../../envs/modules/capability-module.js";

type State = { [key: string]: Json };
type Row = { [key: string]: Json };

/** A JSON value as text: strings as they are, anything else as its JSON (so a wrong-typed argument never matches an id). */
const text = (value: Json | undefined): string => (typeof value === "string" ? value : value === undefined ? "" : JSON.stringify(value));

// --- Tools: τ²-bench airline's get_user_details, search_direct_flight and book_reservation, schemas verbatim. -------

const modelDefinition = (title: string, properties: { [key: string]: Json }): Json => ({ properties, required: Object.keys(properties), title, type: "object" });
const stringProperty = (description: string, title: string): Json => ({ description, title, type: "string" });
const modelOrDictList = (definition: string, description: string, title: string): Json => ({
  description,
  items: { anyOf: [{ $ref: `#/$defs/${definition}` }, { type: "object" }] },
  title,
  type: "array",
});

const tools: ModuleTool[] = [
  {
    type: "function",
    function: {
      name: "get_user_details",
      description: "Get the details of a user, including their reservations.",
      parameters: { properties: { user_id: stringProperty("The user ID, such as 'sara_doe_496'.", "User Id") }, required: ["user_id"], title: "parameters", type: "object" },
    },
  },
  {
    type: "function",
    function: {
      name: "search_direct_flight",
      description: "Search for direct flights between two cities on a specific date.",
      parameters: {
        properties: {
          origin: stringProperty("The origin city airport in three letters, such as 'JFK'.", "Origin"),
          destination: stringProperty("The destination city airport in three letters, such as 'LAX'.", "Destination"),
          date: stringProperty("The date of the flight in the format 'YYYY-MM-DD', such as '2024-01-01'.", "Date"),
        },
        required: ["origin", "destination", "date"],
        title: "parameters",
        type: "object",
      },
    },
  },
  {
    type: "function",
    function: {
      name: "book_reservation",
      description: "Book a reservation.",
      parameters: {
        $defs: {
          FlightInfo: modelDefinition("FlightInfo", {
            flight_number: stringProperty("Flight number, such as 'HAT001'.", "Flight Number"),
            date: stringProperty("The date for the flight in the format 'YYYY-MM-DD', such as '2024-05-01'.", "Date"),
          }),
          Passenger: modelDefinition("Passenger", {
            first_name: stringProperty("Passenger's first name", "First Name"),
            last_name: stringProperty("Passenger's last name", "Last Name"),
            dob: stringProperty("Date of birth in YYYY-MM-DD format", "Dob"),
          }),
          Payment: modelDefinition("Payment", {
            payment_id: stringProperty("Unique identifier for the payment", "Payment Id"),
            amount: { description: "Payment amount in dollars", title: "Amount", type: "integer" },
          }),
        },
        properties: {
          user_id: stringProperty("The ID of the user to book the reservation such as 'sara_doe_496'`.", "User Id"),
          origin: stringProperty("The IATA code for the origin city such as 'SFO'.", "Origin"),
          destination: stringProperty("The IATA code for the destination city such as 'JFK'.", "Destination"),
          flight_type: { description: "The type of flight such as 'one_way' or 'round_trip'.", enum: ["round_trip", "one_way"], title: "Flight Type", type: "string" },
          cabin: { description: "The cabin class such as 'basic_economy', 'economy', or 'business'.", enum: ["business", "economy", "basic_economy"], title: "Cabin", type: "string" },
          flights: modelOrDictList("FlightInfo", "An array of objects containing details about each piece of flight.", "Flights"),
          passengers: modelOrDictList("Passenger", "An array of objects containing details about each passenger.", "Passengers"),
          payment_methods: modelOrDictList("Payment", "An array of objects containing details about each payment method.", "Payment Methods"),
          total_baggages: { description: "The total number of baggage items to book the reservation.", title: "Total Baggages", type: "integer" },
          nonfree_baggages: { description: "The number of non-free baggage items to book the reservation.", title: "Nonfree Baggages", type: "integer" },
          insurance: { description: "Whether the reservation has insurance.", enum: ["yes", "no"], title: "Insurance", type: "string" },
        },
        required: ["user_id", "origin", "destination", "flight_type", "cabin", "flights", "passengers", "payment_methods", "total_baggages", "nonfree_baggages", "insurance"],
        title: "parameters",
        type: "object",
      },
    },
  },
];

const policy = `# Airline agent policy (booking)

The current time is 2024-05-15 15:00:00 EST.

Before taking any action that updates the booking database, you must list the action details and obtain explicit user
confirmation (yes) to proceed. Authenticate the user by user id before acting.

## Book flight
Obtain the user id, the trip type, origin and destination, and the cabin (basic_economy, economy or business). Search
the flights and choose the flight that satisfies every requirement the user states (times, price limits, cabin). A
flight can be booked only if it has enough available seats in the chosen cabin. The price of a passenger is the
flight's price in the chosen cabin; the total is the sum over flights and passengers, plus $30 per passenger for
travel insurance and $50 per non-free bag. The payment amounts must add up to the total exactly. Passenger details
(name and date of birth) must be those the user gives or those in the user's profile when the user flies themself.`;

// --- Generator. ---------------------------------------------------------------------------------------------------

const FIRST_NAMES = ["Mia", "Noah", "Aarav", "Sofia", "Liam", "Chen", "Amelia", "Omar", "Yara", "Lucas", "Ivan", "Emma"];
const LAST_NAMES = ["Garcia", "Kim", "Patel", "Rossi", "Nguyen", "Smith", "Silva", "Khan", "Lopez", "Brown"];
const AIRPORTS = ["JFK", "LAX", "SFO", "ORD", "SEA", "BOS", "MIA", "DEN", "ATL", "PHX"];
const CABINS = ["basic_economy", "economy", "business"];

const clock = (minutes: number) => `${text(Math.floor(minutes / 60)).padStart(2, "0")}:${text(minutes % 60).padStart(2, "0")}:00`;

function generate(seed: number, sdk: ModuleSdk): ModuleInstance {
  const random = sdk.random(seed);
  const first = random.pick(FIRST_NAMES);
  const last = random.pick(LAST_NAMES);
  const userId = `${first.toLowerCase()}_${last.toLowerCase()}_${random.int(100, 999)}`;
  const dob = `19${random.int(60, 99)}-0${random.int(1, 9)}-${random.int(10, 28)}`;
  const cardId = `credit_card_${random.int(1000000, 9999999)}`;
  const giftId = `gift_card_${random.int(1000000, 9999999)}`;
  const [origin, destination] = random.shuffle(AIRPORTS) as [string, string];
  const date = `2024-05-${random.int(18, 30)}`;
  const cabin = random.pick(CABINS);
  const rule = random.pick(["cheapest_after", "earliest_under"] as const);
  const threshold = rule === "cheapest_after" ? random.int(10, 15) * 60 : random.int(25, 50) * 10;

  // Distinct departure times and distinct prices per cabin, so the answer is unique.
  const count = random.int(5, 7);
  const departures = random.shuffle(Array.from({ length: 17 }, (_, index) => (index + 5) * 60 + random.pick([0, 15, 30, 45]))).slice(0, count).sort((a, b) => a - b);
  const prices = (low: number, high: number) => random.shuffle(Array.from({ length: high - low + 1 }, (_, index) => low + index)).slice(0, count);
  const byCabin = { basic_economy: prices(60, 150), economy: prices(151, 500), business: prices(501, 2000) } as { [cabin: string]: number[] };
  if (rule === "earliest_under") byCabin[cabin] = byCabin[cabin]!.map((price) => Math.round((price * threshold) / (cabin === "business" ? 1500 : cabin === "economy" ? 380 : 120)));
  const rows: { flight_number: string; departure: number; seats: number; prices: { [cabin: string]: number } }[] = departures.map((departure, index) => ({
    flight_number: `HAT${text(random.int(1, 299)).padStart(3, "0")}${index}`,
    departure,
    seats: random.int(1, 9),
    prices: { basic_economy: byCabin.basic_economy![index]!, economy: byCabin.economy![index]!, business: byCabin.business![index]! },
  }));
  // One decoy with no seat left in the requested cabin (never the answer).
  const soldOut = random.int(0, count - 1);
  rows[soldOut]!.seats = 0;
  const available = rows.filter((row) => row.seats > 0);
  const qualifies = (row: (typeof rows)[number], limit: number) => (rule === "cheapest_after" ? row.departure > limit : row.prices[cabin]! <= limit);
  // When no flight satisfies the drawn rule, loosen it to the least strict value that one flight meets: the latest
  // available departure minus a minute, or the highest available price.
  const statedThreshold = available.some((row) => qualifies(row, threshold))
    ? threshold
    : rule === "cheapest_after"
      ? available[available.length - 1]!.departure - 1
      : Math.max(...available.map((row) => row.prices[cabin]!));
  const qualifying = available.filter((row) => qualifies(row, statedThreshold));
  // Prices are distinct per cabin and departures distinct, so the chosen flight is unique.
  const chosen = rule === "cheapest_after" ? qualifying.reduce((best, row) => (row.prices[cabin]! < best.prices[cabin]! ? row : best)) : qualifying[0]!;

  const flights: { [key: string]: Json } = {};
  for (const row of rows) {
    flights[row.flight_number] = {
      flight_number: row.flight_number,
      origin,
      destination,
      scheduled_departure_time_est: clock(row.departure),
      scheduled_arrival_time_est: clock(row.departure + 150),
      dates: {
        [date]: {
          status: "available",
          available_seats: { basic_economy: cabin === "basic_economy" ? row.seats : 9, economy: cabin === "economy" ? row.seats : 9, business: cabin === "business" ? row.seats : 9 },
          prices: row.prices,
        },
      },
    };
  }
  const state: State = {
    users: {
      [userId]: {
        user_id: userId,
        name: { first_name: first, last_name: last },
        dob,
        membership: random.pick(["regular", "silver", "gold"]),
        payment_methods: {
          [cardId]: { source: "credit_card", id: cardId, brand: random.pick(["visa", "mastercard"]), last_four: text(random.int(1000, 9999)) },
          [giftId]: { source: "gift_card", id: giftId, amount: random.int(10, 50) },
        },
        reservations: [],
      },
    },
    flights,
    reservations: {},
  };
  const wish =
    rule === "cheapest_after"
      ? `the cheapest ${cabin.replace("_", " ")} flight that departs after ${clock(statedThreshold).slice(0, 5)}`
      : `the earliest ${cabin.replace("_", " ")} flight that costs at most $${statedThreshold}`;
  const total = chosen.prices[cabin]!;
  return {
    state,
    request: `Hi, I'm ${userId}. I'd like to book a one-way trip from ${origin} to ${destination} on ${date}, just for me. I want ${wish}. No bags, no insurance, and I'll pay with my credit card.`,
    followUps: ["Yes, please book it.", "Thanks, that's all."],
    solution: [
      { name: "get_user_details", arguments: { user_id: userId } },
      { name: "search_direct_flight", arguments: { origin, destination, date } },
      {
        name: "book_reservation",
        arguments: {
          user_id: userId,
          origin,
          destination,
          flight_type: "one_way",
          cabin,
          flights: [{ flight_number: chosen.flight_number, date }],
          passengers: [{ first_name: first, last_name: last, dob }],
          payment_methods: [{ payment_id: cardId, amount: total }],
          total_baggages: 0,
          nonfree_baggages: 0,
          insurance: "no",
        },
      },
    ],
    mustSay: [],
    facts: { flight_number: chosen.flight_number, cabin, date, total },
  };
}

// --- Tools' behaviour. -----------------------------------------------------------------------------------------------

function failure(state: State, message: string): ToolOutcome {
  return { output: `Error: ${message}`, error: true, state };
}

function runTool(state: State, name: string, args: { [key: string]: Json }, sdk: ModuleSdk): ToolOutcome {
  const users = state.users as { [id: string]: Row };
  const flights = state.flights as { [id: string]: Row };
  switch (name) {
    case "get_user_details": {
      const user = users[text(args.user_id)];
      return user === undefined ? failure(state, "User not found") : { output: JSON.stringify(user), error: false, state };
    }
    case "search_direct_flight": {
      const results: Json[] = [];
      for (const flight of Object.values(flights)) {
        const day = (flight.dates as { [date: string]: Row })[text(args.date)];
        if (flight.origin !== args.origin || flight.destination !== args.destination || day === undefined || day.status !== "available") continue;
        const { dates: _dates, ...summary } = flight;
        results.push({ ...summary, status: day.status, available_seats: day.available_seats ?? null, prices: day.prices ?? null, date: args.date as string });
      }
      return { output: JSON.stringify(results), error: false, state };
    }
    case "book_reservation": {
      const user = users[text(args.user_id)];
      if (user === undefined) return failure(state, "User not found");
      const cabin = text(args.cabin);
      const passengers = Array.isArray(args.passengers) ? (args.passengers as Row[]) : [];
      const legs = Array.isArray(args.flights) ? (args.flights as Row[]) : [];
      if (passengers.length === 0 || legs.length === 0) return failure(state, "At least one flight and one passenger are required");
      const next = JSON.parse(sdk.canonical(state)) as State;
      let total = 0;
      const booked: Json[] = [];
      for (const leg of legs) {
        const flight = (next.flights as { [id: string]: Row })[text(leg.flight_number)];
        const day = flight === undefined ? undefined : (flight.dates as { [date: string]: Row })[text(leg.date)];
        if (flight === undefined || day === undefined || day.status !== "available") return failure(state, `Flight ${text(leg.flight_number)} not available on date ${text(leg.date)}`);
        const seats = day.available_seats as { [cabin: string]: number };
        const price = (day.prices as { [cabin: string]: number })[cabin];
        if (price === undefined || (seats[cabin] ?? 0) < passengers.length) return failure(state, `Not enough seats on flight ${text(leg.flight_number)}`);
        seats[cabin] = (seats[cabin] ?? 0) - passengers.length;
        total += price * passengers.length;
        booked.push({ flight_number: flight.flight_number as string, date: leg.date as string, origin: flight.origin as string, destination: flight.destination as string, price });
      }
      total += (args.insurance === "yes" ? 30 * passengers.length : 0) + 50 * Number(args.nonfree_baggages ?? 0);
      const payments = Array.isArray(args.payment_methods) ? (args.payment_methods as Row[]) : [];
      const methods = user.payment_methods as { [id: string]: Row };
      for (const payment of payments) if (methods[text(payment.payment_id)] === undefined) return failure(state, `Payment method ${text(payment.payment_id)} not found`);
      const paid = payments.reduce((sum, payment) => sum + Number(payment.amount), 0);
      if (paid !== total) return failure(state, `Payment amount does not add up, total price is ${total}, but paid ${paid}`);
      // A deterministic new id: derived from the state before booking.
      const id = sdk.hash(state).slice(0, 6).toUpperCase();
      const reservation: Row = {
        reservation_id: id,
        user_id: text(args.user_id),
        origin: text(args.origin),
        destination: text(args.destination),
        flight_type: text(args.flight_type),
        cabin,
        flights: booked,
        passengers: passengers.map((passenger) => ({ first_name: text(passenger.first_name), last_name: text(passenger.last_name), dob: text(passenger.dob) })),
        payment_history: payments.map((payment) => ({ payment_id: text(payment.payment_id), amount: Number(payment.amount) })),
        created_at: sdk.now,
        total_baggages: Number(args.total_baggages ?? 0),
        nonfree_baggages: Number(args.nonfree_baggages ?? 0),
        insurance: text(args.insurance),
        status: null,
      };
      (next.reservations as { [id: string]: Json })[id] = reservation;
      ((next.users as { [id: string]: Row })[text(args.user_id)]!.reservations as Json[]).push(id);
      return { output: JSON.stringify(reservation), error: false, state: next };
    }
    default:
      return failure(state, `Tool '${name}' not found.`);
  }
}

// --- Verifier: the right flight was chosen (main signal), and the whole booking equals the ground truth's. ---------

const module: CapabilityModule = {
  capability: "structured_data_reasoning",
  description: "Filtering, comparing and selecting over structured tool results (flight lists with times, prices and seat counts) to find the one item that satisfies the user's stated rule.",
  policy,
  tools,
  readTools: ["get_user_details", "search_direct_flight"],
  generate,
  runTool,
  verify(input, sdk) {
    const { instance, finalState } = input;
    let expected = instance.state;
    for (const call of instance.solution) expected = runTool(expected, call.name, call.arguments, sdk).state;
    const booked = Object.values(finalState.reservations as { [id: string]: Row });
    const chose = booked.some((reservation) => {
      const legs = reservation.flights as Row[];
      return legs.length === 1 && legs[0]!.flight_number === instance.facts.flight_number && reservation.cabin === instance.facts.cabin;
    });
    const breakdown = {
      flight: chose && booked.length === 1 ? 1 : 0,
      // Passenger, payment, bags, insurance and seat counts all equal the ground truth's booking.
      state: sdk.hash(finalState) === sdk.hash(expected) ? 1 : 0,
    };
    const reward = (breakdown.flight + breakdown.state) / 2;
    return { reward, success: reward === 1, breakdown };
  },
};

export default module;
