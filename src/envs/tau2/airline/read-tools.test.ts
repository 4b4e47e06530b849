/** The airline's read-only and generic tools: details, flight status, airports, searches, transfer. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { connectionDate } from "./search-onestop-flight.js";
import { freshState, observe, observeJson } from "../../../testing/tau2-airline-test-support.js";

const MIA_LI =
  '{"user_id": "mia_li_3668", "name": {"first_name": "Mia", "last_name": "Li"}, "address": {"address1": ' +
  '"975 Sunset Drive", "address2": "Suite 217", "city": "Austin", "country": "USA", "state": "TX", "zip": "78750"}, ' +
  '"email": "mia.li3818@example.com", "dob": "1990-04-05", "payment_methods": {"credit_card_4421486": {"source": ' +
  '"credit_card", "id": "credit_card_4421486", "brand": "visa", "last_four": "7447"}, "certificate_4856383": ' +
  '{"source": "certificate", "id": "certificate_4856383", "amount": 100.0}, "certificate_7504069": {"source": ' +
  '"certificate", "id": "certificate_7504069", "amount": 250.0}, "credit_card_1955700": {"source": "credit_card", ' +
  '"id": "credit_card_1955700", "brand": "visa", "last_four": "1907"}}, "saved_passengers": [{"first_name": ' +
  '"Amelia", "last_name": "Ahmed", "dob": "1957-03-21"}], "membership": "gold", "reservations": ["NO6JO3", ' +
  '"AIXC49", "HKEG34"]}';

const NO6JO3 =
  '{"reservation_id": "NO6JO3", "user_id": "mia_li_3668", "origin": "JFK", "destination": "DFW", "flight_type": ' +
  '"one_way", "cabin": "business", "flights": [{"flight_number": "HAT083", "origin": "JFK", "destination": "SEA", ' +
  '"date": "2024-05-16", "price": 483}, {"flight_number": "HAT221", "origin": "SEA", "destination": "DFW", "date": ' +
  '"2024-05-16", "price": 1991}], "passengers": [{"first_name": "Mia", "last_name": "Li", "dob": "1990-04-05"}], ' +
  '"payment_history": [{"payment_id": "credit_card_1955700", "amount": 2504}], "created_at": "2024-05-09T16:15:57", ' +
  '"total_baggages": 2, "nonfree_baggages": 0, "insurance": "yes", "status": null}';

test("get_user_details dumps the user in pydantic order with float balances", () => {
  const state = freshState();
  assert.equal(observe(state, "get_user_details", { user_id: "mia_li_3668" }), MIA_LI);
  assert.equal(observe(state, "get_user_details", { user_id: "mia_li_0000" }), "Error: User mia_li_0000 not found");
});

test("get_reservation_details dumps the reservation in pydantic order", () => {
  const state = freshState();
  assert.equal(observe(state, "get_reservation_details", { reservation_id: "NO6JO3" }), NO6JO3);
  assert.equal(
    observe(state, "get_reservation_details", { reservation_id: "ZZZZZZ" }),
    "Error: Reservation ZZZZZZ not found",
  );
});

test("get_flight_status returns the bare status string", () => {
  const state = freshState();
  assert.equal(observe(state, "get_flight_status", { flight_number: "HAT136", date: "2024-05-01" }), "landed");
  assert.equal(observe(state, "get_flight_status", { flight_number: "HAT136", date: "2024-05-07" }), "cancelled");
  assert.equal(observe(state, "get_flight_status", { flight_number: "HAT136", date: "2024-05-15" }), "delayed");
  assert.equal(observe(state, "get_flight_status", { flight_number: "HAT136", date: "2024-05-20" }), "available");
  assert.equal(
    observe(state, "get_flight_status", { flight_number: "HAT999", date: "2024-05-20" }),
    "Error: Flight HAT999 not found",
  );
  assert.equal(
    observe(state, "get_flight_status", { flight_number: "HAT136", date: "2024-06-01" }),
    "Error: Flight HAT136 not found on date 2024-06-01",
  );
});

test("list_all_airports returns the fixed list of twenty airports", () => {
  const airports = observeJson(freshState(), "list_all_airports", {}) as { iata: string; city: string }[];
  assert.equal(airports.length, 20);
  assert.deepEqual(airports[0], { iata: "SFO", city: "San Francisco" });
  assert.deepEqual(airports[19], { iata: "LGA", city: "LaGuardia" });
});

test("search_direct_flight lists available flights with their seats and prices and no date", () => {
  const flights = observeJson(freshState(), "search_direct_flight", {
    origin: "JFK",
    destination: "ATL",
    date: "2024-05-20",
  }) as Record<string, unknown>[];
  assert.ok(flights.length > 0);
  const hat136 = flights.find((flight) => flight.flight_number === "HAT136");
  assert.deepEqual(hat136, {
    flight_number: "HAT136",
    origin: "JFK",
    destination: "ATL",
    status: "available",
    scheduled_departure_time_est: "19:00:00",
    scheduled_arrival_time_est: "21:30:00",
    date: null,
    available_seats: { basic_economy: 15, economy: 14, business: 2 },
    prices: { basic_economy: 52, economy: 152, business: 277 },
  });
  const noDate = { origin: "JFK", destination: "ATL", date: "x" };
  assert.deepEqual(observeJson(freshState(), "search_direct_flight", noDate), []);
});

test("search_onestop_flight pairs legs and dates them", () => {
  const pairs = observeJson(freshState(), "search_onestop_flight", {
    origin: "JFK",
    destination: "SEA",
    date: "2024-05-20",
  }) as Record<string, unknown>[][];
  assert.ok(pairs.length > 0);
  const [first, second] = pairs[0] as [Record<string, unknown>, Record<string, unknown>];
  assert.equal(first.flight_number, "HAT057");
  assert.equal(first.date, "2024-05-20");
  assert.equal(second.flight_number, "HAT039");
  assert.equal(second.origin, "ATL");
  assert.equal(second.date, "2024-05-20");
  for (const [leg1, leg2] of pairs as [Record<string, string>, Record<string, string>][]) {
    assert.ok(String(leg2.scheduled_departure_time_est) >= String(leg1.scheduled_arrival_time_est));
  }
});

test("the connection date keeps τ²-bench's arithmetic quirk", () => {
  assert.equal(connectionDate("2024-05-20", "21:30:00"), "2024-05-20");
  assert.equal(connectionDate("2024-05-20", "03:00:00+1"), "2024-05-21");
  assert.equal(connectionDate("2024-05-09", "03:00:00+1"), "2024-05-10");
  assert.equal(connectionDate("2024-05-05", "03:00:00+1"), "2024-05-6");
  assert.equal(connectionDate("2024-05-31", "03:00:00+1"), "2024-05-32");
});

test("transfer_to_human_agents always succeeds", () => {
  assert.equal(observe(freshState(), "transfer_to_human_agents", { summary: "wants a human" }), "Transfer successful");
});

test("arguments are checked before the tool runs, with Python's TypeError wording", () => {
  assert.equal(
    observe(freshState(), "get_user_details", {}),
    "Error: AirlineTools.get_user_details() missing 1 required positional argument: 'user_id'",
  );
});
