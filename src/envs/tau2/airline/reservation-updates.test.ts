/** Cancelling and updating reservations: refunds, baggage, flights, passengers, certificates. */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Reservation } from "./database.js";
import { airlineBase, freshState, observe, observeJson } from "../../../testing/tau2-airline-test-support.js";

const NO6JO3_FLIGHTS = [
  { flight_number: "HAT083", date: "2024-05-16" },
  { flight_number: "HAT221", date: "2024-05-16" },
];

test("cancel_reservation appends refunds and marks the reservation, without releasing seats", () => {
  const state = freshState();
  const query = { origin: "JFK", destination: "SEA", date: "2024-05-16" };
  const search = () => observe(state, "search_direct_flight", query);
  const before = search();
  const cancelled = observeJson(state, "cancel_reservation", { reservation_id: "NO6JO3" }) as Reservation;
  assert.equal(cancelled.status, "cancelled");
  assert.deepEqual(cancelled.payment_history, [
    { payment_id: "credit_card_1955700", amount: 2504 },
    { payment_id: "credit_card_1955700", amount: -2504 },
  ]);
  assert.equal(search(), before);
  // Cancelling again reverses every entry, refunds included.
  const again = observeJson(state, "cancel_reservation", { reservation_id: "NO6JO3" }) as Reservation;
  assert.deepEqual(
    again.payment_history.map((payment) => payment.amount),
    [2504, -2504, -2504, 2504],
  );
  const missing = observe(state, "cancel_reservation", { reservation_id: "ZZZZZZ" });
  assert.equal(missing, "Error: Reservation ZZZZZZ not found");
  assert.equal(airlineBase().tables.reservations.get("NO6JO3")?.status, null);
});

test("update_reservation_baggages charges $50 per added non-free bag", () => {
  const state = freshState();
  const update = (nonfree: number, paymentId: string, reservationId = "NO6JO3") =>
    observe(state, "update_reservation_baggages", {
      reservation_id: reservationId,
      total_baggages: nonfree + 2,
      nonfree_baggages: nonfree,
      payment_id: paymentId,
    });
  const added = JSON.parse(update(2, "credit_card_1955700")) as Reservation;
  assert.deepEqual(added.payment_history.at(-1), { payment_id: "credit_card_1955700", amount: 100 });
  assert.equal(added.nonfree_baggages, 2);
  assert.equal(added.total_baggages, 4);
  const removed = JSON.parse(update(1, "credit_card_1955700")) as Reservation;
  assert.equal(removed.payment_history.length, 2);
  assert.equal(update(3, "certificate_4856383"), "Error: Certificate cannot be used to update reservation");
  assert.equal(update(3, "gift_card_0000000"), "Error: Payment method not found");
  assert.equal(update(3, "credit_card_1955700", "ZZZZZZ"), "Error: Reservation ZZZZZZ not found");
  // mei_hernandez_8984's gift card holds 98: two bags (100) are too many, one (50) is fine.
  assert.equal(update(2, "gift_card_5309492", "07S7FC"), "Error: Gift card balance is not enough");
  observeJson(state, "update_reservation_baggages", {
    reservation_id: "07S7FC",
    total_baggages: 1,
    nonfree_baggages: 1,
    payment_id: "gift_card_5309492",
  });
  assert.match(observe(state, "get_user_details", { user_id: "mei_hernandez_8984" }), /"amount": 48\.0/);
});

test("update_reservation_flights reprices a cabin change and records the difference", () => {
  const state = freshState();
  const updated = observeJson(state, "update_reservation_flights", {
    reservation_id: "NO6JO3",
    cabin: "economy",
    flights: NO6JO3_FLIGHTS,
    payment_id: "credit_card_1955700",
  }) as Reservation;
  assert.equal(updated.cabin, "economy");
  assert.deepEqual(
    updated.flights.map((flight) => [flight.flight_number, flight.price]),
    [
      ["HAT083", 195],
      ["HAT221", 122],
    ],
  );
  assert.deepEqual(updated.payment_history.at(-1), { payment_id: "credit_card_1955700", amount: -2157 });
  // Same flights, same cabin: kept at their booked prices, nothing charged.
  const unchanged = observeJson(state, "update_reservation_flights", {
    reservation_id: "NO6JO3",
    cabin: "economy",
    flights: NO6JO3_FLIGHTS,
    payment_id: "credit_card_1955700",
  }) as Reservation;
  assert.equal(unchanged.payment_history.length, 2);
});

test("a refund on a gift card raises its balance; seats are not updated", () => {
  const state = freshState();
  const seatsBefore = state.get("flights", "HAT286")?.dates["2024-05-28"];
  const updated = observeJson(state, "update_reservation_flights", {
    reservation_id: "07S7FC",
    cabin: "economy",
    flights: [
      { flight_number: "HAT286", date: "2024-05-28" },
      { flight_number: "HAT175", date: "2024-05-29" },
    ],
    payment_id: "gift_card_5309492",
  }) as Reservation;
  assert.deepEqual(updated.payment_history.at(-1), { payment_id: "gift_card_5309492", amount: -3618 });
  assert.match(observe(state, "get_user_details", { user_id: "mei_hernandez_8984" }), /"amount": 3716\.0/);
  assert.equal(state.get("flights", "HAT286")?.dates["2024-05-28"], seatsBefore);
});

test("update_reservation_flights refusals", () => {
  const state = freshState();
  const update = (flights: unknown[], cabin = "business", paymentId = "credit_card_1955700") =>
    observe(state, "update_reservation_flights", { reservation_id: "NO6JO3", cabin, flights, payment_id: paymentId });
  assert.equal(update([{ flight_number: "HAT999", date: "2024-05-16" }]), "Error: Flight HAT999 not found");
  assert.equal(
    update([{ flight_number: "HAT136", date: "2024-05-15" }]),
    "Error: Flight HAT136 not available on date 2024-05-15",
  );
  assert.equal(
    update([{ flight_number: "HAT136", date: "2024-06-15" }]),
    "Error: Flight HAT136 not found on date 2024-06-15",
  );
  assert.match(update([{ date: "2024-05-16" }]), /^Error: 1 validation error for FlightInfo\nflight_number\n {2}Field/);
  assert.equal(
    update(NO6JO3_FLIGHTS, "business", "certificate_4856383"),
    "Error: Certificate cannot be used to update reservation",
  );
  assert.equal(update(NO6JO3_FLIGHTS, "business", "paypal_1"), "Error: Payment method not found");
  assert.deepEqual(state.touched("reservations"), new Set());
});

test("update_reservation_passengers replaces details but not the head count", () => {
  const state = freshState();
  const passengers = [{ first_name: "Mia", last_name: "Lee", dob: "1990-04-05", nickname: "dropped" }];
  const updated = observeJson(state, "update_reservation_passengers", {
    reservation_id: "NO6JO3",
    passengers,
  }) as Reservation;
  assert.deepEqual(updated.passengers, [{ first_name: "Mia", last_name: "Lee", dob: "1990-04-05" }]);
  assert.equal(
    observe(state, "update_reservation_passengers", {
      reservation_id: "NO6JO3",
      passengers: [...passengers, ...passengers],
    }),
    "Error: Number of passengers does not match",
  );
  assert.match(
    observe(state, "update_reservation_passengers", { reservation_id: "NO6JO3", passengers: [{ first_name: "Mia" }] }),
    /^Error: 2 validation errors for Passenger\n/,
  );
  assert.equal(
    observe(state, "update_reservation_passengers", { reservation_id: "ZZZZZZ", passengers }),
    "Error: Reservation ZZZZZZ not found",
  );
});

test("send_certificate adds certificate_3221322, …323, …324, then refuses", () => {
  const state = freshState();
  const send = (amount: number) => observe(state, "send_certificate", { user_id: "mia_li_3668", amount });
  assert.equal(send(150), "Certificate certificate_3221322 added to user mia_li_3668 with amount 150.");
  assert.equal(send(50), "Certificate certificate_3221323 added to user mia_li_3668 with amount 50.");
  assert.equal(send(0), "Certificate certificate_3221324 added to user mia_li_3668 with amount 0.");
  assert.equal(send(10), "Error: Too many certificates");
  assert.match(
    observe(state, "get_user_details", { user_id: "mia_li_3668" }),
    /"certificate_3221322": \{"source": "certificate", "id": "certificate_3221322", "amount": 150\.0\}/,
  );
  assert.equal(
    observe(state, "send_certificate", { user_id: "nobody_1", amount: 5 }),
    "Error: User nobody_1 not found",
  );
});

test("writes never reach the frozen base", () => {
  const state = freshState();
  const original = structuredClone(airlineBase().tables.reservations.get("NO6JO3"));
  observeJson(state, "cancel_reservation", { reservation_id: "NO6JO3" });
  observeJson(state, "update_reservation_baggages", {
    reservation_id: "NO6JO3",
    total_baggages: 9,
    nonfree_baggages: 9,
    payment_id: "credit_card_1955700",
  });
  assert.deepEqual(airlineBase().tables.reservations.get("NO6JO3"), original);
  assert.deepEqual(freshState().get("reservations", "NO6JO3"), original);
  const frozen = airlineBase().tables.users.get("mia_li_3668") as { reservations: string[] };
  assert.throws(() => frozen.reservations.push("HATHAT"), TypeError);
});
