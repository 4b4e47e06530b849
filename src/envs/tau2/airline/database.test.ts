/** The airline database schema: db.json passes, records come out in pydantic order, bad shapes fail by path. */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { DataFileError } from "../../core/data-file-error.js";
import { validateJson } from "../../core/read-json-file.js";
import { tau2DomainDirectory } from "../../../testing/shared-data.js";
import { databaseSchema } from "./database.js";

function realDatabase(): Record<string, Record<string, Record<string, unknown>>> {
  const file = path.join(tau2DomainDirectory("airline"), "db.json");
  return JSON.parse(readFileSync(file, "utf8")) as Record<string, Record<string, Record<string, unknown>>>;
}

const flight = {
  flight_number: "HAT001",
  origin: "PHL",
  destination: "LGA",
  scheduled_departure_time_est: "06:00:00",
  scheduled_arrival_time_est: "07:00:00",
  dates: {
    "2024-05-16": {
      status: "available",
      available_seats: { basic_economy: 1, economy: 2, business: 3 },
      prices: { basic_economy: 50, economy: 100, business: 300 },
    },
    "2024-05-01": { status: "cancelled" },
  },
};
const user = {
  user_id: "u_1",
  name: { first_name: "A", last_name: "B" },
  address: { address1: "1 Main St", city: "X", country: "USA", state: "CA", zip: "00000" },
  email: "a@b.c",
  dob: "1990-01-01",
  payment_methods: { gift_card_1: { amount: 10, id: "gift_card_1", source: "gift_card" } },
  saved_passengers: [],
  membership: "gold",
  reservations: ["R1"],
};
const reservation = {
  reservation_id: "R1",
  user_id: "u_1",
  origin: "PHL",
  destination: "LGA",
  flight_type: "one_way",
  cabin: "economy",
  flights: [{ origin: "PHL", destination: "LGA", flight_number: "HAT001", date: "2024-05-16", price: 100 }],
  passengers: [{ first_name: "A", last_name: "B", dob: "1990-01-01" }],
  payment_history: [{ payment_id: "gift_card_1", amount: 100 }],
  created_at: "2024-05-01T00:00:00",
  total_baggages: 0,
  nonfree_baggages: 0,
  insurance: "no",
  unknown_key: "dropped",
};

function issuePaths(value: unknown): string[] {
  const result = databaseSchema.safeParse(value);
  assert.equal(result.success, false);
  return result.error?.issues.map((issue) => issue.path.join(".")) ?? [];
}

test("the real airline db.json validates", () => {
  const parsed = databaseSchema.parse(realDatabase());
  assert.equal(Object.keys(parsed.flights).length, 300);
  assert.equal(Object.keys(parsed.users).length, 500);
  assert.equal(Object.keys(parsed.reservations).length, 2000);
});

test("parsed records follow the pydantic field order and fill optional fields", () => {
  const parsed = databaseSchema.parse({
    flights: { HAT001: flight },
    users: { u_1: user },
    reservations: { R1: reservation },
  });
  assert.deepEqual(Object.keys(parsed.users.u_1?.payment_methods.gift_card_1 ?? {}), ["source", "id", "amount"]);
  assert.equal(parsed.users.u_1?.address.address2, null);
  assert.deepEqual(Object.keys(parsed.reservations.R1?.flights[0] ?? {}), [
    "flight_number",
    "origin",
    "destination",
    "date",
    "price",
  ]);
  assert.equal(parsed.reservations.R1?.status, null);
  assert.equal(Object.hasOwn(parsed.reservations.R1 ?? {}, "unknown_key"), false);
  // Seat and price maps keep the file's cabin order.
  const available = parsed.flights.HAT001?.dates["2024-05-16"];
  assert.equal(available?.status, "available");
  if (available?.status === "available") {
    assert.deepEqual(Object.keys(available.available_seats), ["basic_economy", "economy", "business"]);
  }
});

test("wrong shapes are reported with the path of each problem", () => {
  assert.deepEqual(issuePaths({ flights: {}, users: {} }), ["reservations"]);
  const badSeats = structuredClone(flight) as { dates: Record<string, Record<string, unknown>> };
  (badSeats.dates["2024-05-16"] as { available_seats: Record<string, unknown> }).available_seats.economy = "2";
  assert.deepEqual(issuePaths({ flights: { HAT001: badSeats }, users: {}, reservations: {} }), [
    "flights.HAT001.dates.2024-05-16.available_seats.economy",
  ]);
  const badStatus = structuredClone(flight) as { dates: Record<string, unknown> };
  badStatus.dates["2024-05-02"] = { status: "boarding" };
  assert.deepEqual(issuePaths({ flights: { HAT001: badStatus }, users: {}, reservations: {} }), [
    "flights.HAT001.dates.2024-05-02.status",
  ]);
  const badUser = structuredClone(user) as Record<string, unknown>;
  badUser.membership = "platinum";
  badUser.payment_methods = { paypal_1: { source: "paypal", id: "paypal_1" }, gift_card_1: { source: "gift_card" } };
  assert.deepEqual(issuePaths({ flights: {}, users: { u_1: badUser }, reservations: {} }).sort(), [
    "users.u_1.membership",
    "users.u_1.payment_methods.gift_card_1.amount",
    "users.u_1.payment_methods.gift_card_1.id",
    "users.u_1.payment_methods.paypal_1.source",
  ]);
  const badReservation = structuredClone(reservation) as Record<string, unknown>;
  badReservation.cabin = "first";
  badReservation.total_baggages = 1.5;
  delete badReservation.insurance;
  assert.deepEqual(issuePaths({ flights: {}, users: {}, reservations: { R1: badReservation } }), [
    "reservations.R1.cabin",
    "reservations.R1.total_baggages",
    "reservations.R1.insurance",
  ]);
});

test("validateJson names the file and lists each problem with its path", () => {
  assert.throws(
    () => validateJson({ flights: [], users: {}, reservations: {} }, databaseSchema, "db.json"),
    (error: unknown) => DataFileError.isInstance(error) && error.problems[0]?.startsWith("flights: ") === true,
  );
});
