/** `book_reservation`: the booking, its deductions and writes, and every refusal in τ²-bench's order. */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { AirlineState } from "./database.js";
import { airlineBase, freshState, observe, observeJson } from "../../../testing/tau2-airline-test-support.js";

const BOOKED_HATHAT =
  '{"reservation_id": "HATHAT", "user_id": "mia_li_3668", "origin": "JFK", "destination": "SEA", "flight_type": ' +
  '"one_way", "cabin": "economy", "flights": [{"flight_number": "HAT136", "origin": "JFK", "destination": "ATL", ' +
  '"date": "2024-05-20", "price": 152}, {"flight_number": "HAT039", "origin": "ATL", "destination": "SEA", "date": ' +
  '"2024-05-20", "price": 103}], "passengers": [{"first_name": "Mia", "last_name": "Li", "dob": "1990-04-05"}], ' +
  '"payment_history": [{"payment_id": "certificate_7504069", "amount": 250}, {"payment_id": "credit_card_4421486", ' +
  '"amount": 5}], "created_at": "2024-05-15T15:00:00", "total_baggages": 3, "nonfree_baggages": 0, "insurance": ' +
  '"no", "status": null}';

const MIA = { first_name: "Mia", last_name: "Li", dob: "1990-04-05" };

/** One economy seat on HAT136 (152) on 2024-05-20; override any argument. */
function booking(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    user_id: "mia_li_3668",
    origin: "JFK",
    destination: "ATL",
    flight_type: "one_way",
    cabin: "economy",
    flights: [{ flight_number: "HAT136", date: "2024-05-20" }],
    passengers: [MIA],
    payment_methods: [{ payment_id: "credit_card_4421486", amount: 152 }],
    total_baggages: 0,
    nonfree_baggages: 0,
    insurance: "no",
    ...overrides,
  };
}

function economySeats(state: AirlineState, flightNumber: string, date: string): number | undefined {
  const instance = state.get("flights", flightNumber)?.dates[date];
  return instance?.status === "available" ? instance.available_seats.economy : undefined;
}

test("booking creates HATHAT, uses up the certificate, takes the seats and lists the reservation", () => {
  const state = freshState();
  const result = observe(
    state,
    "book_reservation",
    booking({
      destination: "SEA",
      flights: [
        { flight_number: "HAT136", date: "2024-05-20" },
        { flight_number: "HAT039", date: "2024-05-20" },
      ],
      payment_methods: [
        { payment_id: "certificate_7504069", amount: 250 },
        { payment_id: "credit_card_4421486", amount: 5 },
      ],
      total_baggages: 3,
    }),
  );
  assert.equal(result, BOOKED_HATHAT);
  assert.equal(economySeats(state, "HAT136", "2024-05-20"), 13);
  assert.equal(economySeats(state, "HAT039", "2024-05-20"), 9);
  const user = state.get("users", "mia_li_3668");
  assert.equal(Object.hasOwn(user?.payment_methods ?? {}, "certificate_7504069"), false);
  assert.deepEqual(user?.reservations, ["NO6JO3", "AIXC49", "HKEG34", "HATHAT"]);
  assert.equal(observe(state, "get_reservation_details", { reservation_id: "HATHAT" }), BOOKED_HATHAT);
  // The shared base is untouched.
  assert.equal(economySeats(airlineBase().createState(), "HAT136", "2024-05-20"), 14);
  assert.ok(Object.hasOwn(airlineBase().tables.users.get("mia_li_3668")?.payment_methods ?? {}, "certificate_7504069"));
});

test("new reservations are HATHAT, HATHAU, HATHAV, then 'Too many reservations'", () => {
  const state = freshState();
  const book = () => observeJson(state, "book_reservation", booking()) as { reservation_id: string };
  const ids = [1, 2, 3].map(() => book().reservation_id);
  assert.deepEqual(ids, ["HATHAT", "HATHAU", "HATHAV"]);
  assert.equal(observe(state, "book_reservation", booking()), "Error: Too many reservations");
  assert.equal(economySeats(state, "HAT136", "2024-05-20"), 11);
});

test("insurance and non-free bags are priced per passenger and per bag", () => {
  const state = freshState();
  const args = booking({ insurance: "yes", nonfree_baggages: 2, total_baggages: 3 });
  assert.equal(
    observe(state, "book_reservation", args),
    "Error: Payment amount does not add up, total price is 282, but paid 152",
  );
  const paid = booking({
    insurance: "yes",
    nonfree_baggages: 2,
    passengers: [MIA, { first_name: "Amelia", last_name: "Ahmed", dob: "1957-03-21" }],
    payment_methods: [{ payment_id: "credit_card_4421486", amount: 2 * 152 + 2 * 30 + 100 }],
  });
  const reservation = observeJson(state, "book_reservation", paid) as { payment_history: unknown[] };
  assert.deepEqual(reservation.payment_history, [{ payment_id: "credit_card_4421486", amount: 464 }]);
  assert.equal(economySeats(state, "HAT136", "2024-05-20"), 12);
});

test("a gift card is debited and prints as a float", () => {
  const state = freshState();
  observeJson(
    state,
    "book_reservation",
    booking({
      user_id: "mei_hernandez_8984",
      cabin: "basic_economy",
      payment_methods: [{ payment_id: "gift_card_5309492", amount: 52 }],
    }),
  );
  assert.match(
    observe(state, "get_user_details", { user_id: "mei_hernandez_8984" }),
    /"gift_card_5309492": \{"source": "gift_card", "id": "gift_card_5309492", "amount": 46\.0\}/,
  );
});

test("argument models are validated first, in the order flights, passengers, payments", () => {
  const state = freshState();
  const everythingWrong = booking({
    user_id: "ghost_1",
    flights: [{ flight_number: "HAT136" }],
    passengers: [{ first_name: "Mia" }],
    payment_methods: [{ payment_id: "x", amount: "lots" }],
  });
  assert.match(observe(state, "book_reservation", everythingWrong), /^Error: 1 validation error for FlightInfo\ndate/);
  assert.match(
    observe(state, "book_reservation", { ...everythingWrong, flights: [] }),
    /^Error: 2 validation errors for Passenger\nlast_name\n/,
  );
  assert.match(
    observe(state, "book_reservation", { ...everythingWrong, flights: [], passengers: [] }),
    /^Error: 1 validation error for Payment\namount\n {2}Input should be a valid integer, unable to parse string/,
  );
  assert.equal(
    observe(state, "book_reservation", { ...everythingWrong, flights: [], passengers: [], payment_methods: [] }),
    "Error: User ghost_1 not found",
  );
});

test("flight, seat and payment refusals use τ²-bench's messages and change nothing", () => {
  const state = freshState();
  const flight = (date: string, number = "HAT136") => ({ flights: [{ flight_number: number, date }] });
  const paying = (...payments: [string, number][]) => ({
    payment_methods: payments.map(([id, amount]) => ({ payment_id: id, amount })),
  });
  const cases: [Record<string, unknown>, string][] = [
    [flight("2024-05-20", "HAT999"), "Error: Flight HAT999 not found"],
    [flight("2024-06-01"), "Error: Flight HAT136 not found on date 2024-06-01"],
    [flight("2024-05-15"), "Error: Flight HAT136 not available on date 2024-05-15"],
    [{ cabin: "business", passengers: [MIA, MIA, MIA] }, "Error: Not enough seats on flight HAT136"],
    [paying(["credit_card_0000000", 152]), "Error: Payment method credit_card_0000000 not found"],
    [
      paying(["certificate_4856383", 101], ["credit_card_4421486", 51]),
      "Error: Not enough balance in payment method certificate_4856383",
    ],
    [
      paying(["certificate_4856383", 100]),
      "Error: Payment amount does not add up, total price is 152, but paid 100",
    ],
  ];
  for (const [overrides, expected] of cases) {
    assert.equal(observe(state, "book_reservation", booking(overrides)), expected);
  }
  assert.deepEqual([...state.touched("users"), ...state.touched("flights"), ...state.touched("reservations")], []);
});

test("a certificate listed twice fails with Python's KeyError after the first deduction, as in τ²-bench", () => {
  const state = freshState();
  const result = observe(
    state,
    "book_reservation",
    booking({
      payment_methods: [
        { payment_id: "certificate_7504069", amount: 100 },
        { payment_id: "certificate_7504069", amount: 52 },
      ],
    }),
  );
  assert.equal(result, "Error: 'certificate_7504069'");
  assert.equal(Object.hasOwn(state.get("users", "mia_li_3668")?.payment_methods ?? {}, "certificate_7504069"), false);
  assert.equal(state.has("reservations", "HATHAT"), false);
  assert.equal(economySeats(state, "HAT136", "2024-05-20"), 14);
});

test("an unknown flight type, cabin or insurance fails constructing the Reservation, with pydantic's text", () => {
  const state = freshState();
  // Text from τ²-bench 0ed2fd8 with pydantic 2.10.6 for the same calls.
  assert.equal(
    observe(state, "book_reservation", booking({ cabin: "first", insurance: "maybe" })),
    "Error: 2 validation errors for Reservation\n" +
      "cabin\n  Input should be 'business', 'economy' or 'basic_economy' [type=literal_error, input_value='first', input_type=str]\n" +
      "    For further information visit https://errors.pydantic.dev/2.10/v/literal_error\n" +
      "insurance\n  Input should be 'yes' or 'no' [type=literal_error, input_value='maybe', input_type=str]\n" +
      "    For further information visit https://errors.pydantic.dev/2.10/v/literal_error",
  );
  assert.equal(state.has("reservations", "HATHAT"), false);
});
