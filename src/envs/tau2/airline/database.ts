/** The airline database (`db.json`: flights, users, reservations): record types and the zod schema that checks it. */
import { z } from "zod";
import type { DatabaseState } from "../../core/copy-on-write-database.js";

// Field order follows τ²-bench's pydantic models (data_model.py), so parsed records come out as `model_dump` orders
// them; unknown keys are dropped, as pydantic ignores them.

const cabinClassSchema = z.enum(["business", "economy", "basic_economy"]);
const flightTypeSchema = z.enum(["round_trip", "one_way"]);
const insuranceSchema = z.enum(["yes", "no"]);
const membershipLevelSchema = z.enum(["gold", "silver", "regular"]);
const integer = z.number().int();

const nameSchema = z.object({ first_name: z.string(), last_name: z.string() });

const addressSchema = z.object({
  address1: z.string(),
  address2: z.string().nullable().default(null),
  city: z.string(),
  country: z.string(),
  state: z.string(),
  zip: z.string(),
});

const paymentSchema = z.object({ payment_id: z.string(), amount: integer });

const creditCardSchema = z.object({
  source: z.literal("credit_card"),
  id: z.string(),
  brand: z.string(),
  last_four: z.string(),
});

/** `amount` is a Python float (`GiftCard.amount: float`). */
const giftCardSchema = z.object({ source: z.literal("gift_card"), id: z.string(), amount: z.number() });

/** `amount` is a Python float (`Certificate.amount: float`). */
const certificateSchema = z.object({ source: z.literal("certificate"), id: z.string(), amount: z.number() });

const paymentMethodSchema = z.discriminatedUnion("source", [creditCardSchema, giftCardSchema, certificateSchema]);

const passengerSchema = z.object({ first_name: z.string(), last_name: z.string(), dob: z.string() });

/** `dict[CabinClass, int]`: any subset of the cabins, in the file's order. */
const seatCountsSchema = z.partialRecord(cabinClassSchema, integer);

const flightDateAvailableSchema = z.object({
  status: z.literal("available"),
  available_seats: seatCountsSchema,
  prices: seatCountsSchema,
});
const flightDateLandedSchema = z.object({
  status: z.literal("landed"),
  actual_departure_time_est: z.string(),
  actual_arrival_time_est: z.string(),
});
const flightDateCancelledSchema = z.object({ status: z.literal("cancelled") });
const flightDateDelayedSchema = z.object({
  status: z.literal("delayed"),
  estimated_departure_time_est: z.string(),
  estimated_arrival_time_est: z.string(),
});
const flightDateFlyingSchema = z.object({
  status: z.literal("flying"),
  actual_departure_time_est: z.string(),
  estimated_arrival_time_est: z.string(),
});
const flightDateOnTimeSchema = z.object({
  status: z.literal("on time"),
  estimated_departure_time_est: z.string(),
  estimated_arrival_time_est: z.string(),
});
const flightDateStatusSchema = z.discriminatedUnion("status", [
  flightDateAvailableSchema,
  flightDateLandedSchema,
  flightDateCancelledSchema,
  flightDateDelayedSchema,
  flightDateFlyingSchema,
  flightDateOnTimeSchema,
]);

const flightSchema = z.object({
  flight_number: z.string(),
  origin: z.string(),
  destination: z.string(),
  scheduled_departure_time_est: z.string(),
  scheduled_arrival_time_est: z.string(),
  dates: z.record(z.string(), flightDateStatusSchema),
});

const reservationFlightSchema = z.object({
  flight_number: z.string(),
  origin: z.string(),
  destination: z.string(),
  date: z.string(),
  price: integer,
});

const userSchema = z.object({
  user_id: z.string(),
  name: nameSchema,
  address: addressSchema,
  email: z.string(),
  dob: z.string(),
  payment_methods: z.record(z.string(), paymentMethodSchema),
  saved_passengers: z.array(passengerSchema),
  membership: membershipLevelSchema,
  reservations: z.array(z.string()),
});

const reservationSchema = z.object({
  reservation_id: z.string(),
  user_id: z.string(),
  origin: z.string(),
  destination: z.string(),
  flight_type: flightTypeSchema,
  cabin: cabinClassSchema,
  flights: z.array(reservationFlightSchema),
  passengers: z.array(passengerSchema),
  payment_history: z.array(paymentSchema),
  created_at: z.string(),
  total_baggages: integer,
  nonfree_baggages: integer,
  insurance: insuranceSchema,
  status: z.literal("cancelled").nullable().default(null),
});

export type CabinClass = z.infer<typeof cabinClassSchema>;
export type FlightType = z.infer<typeof flightTypeSchema>;
export type Insurance = z.infer<typeof insuranceSchema>;
export type Payment = z.infer<typeof paymentSchema>;
export type GiftCard = z.infer<typeof giftCardSchema>;
export type Certificate = z.infer<typeof certificateSchema>;
export type PaymentMethod = z.infer<typeof paymentMethodSchema>;
export type Passenger = z.infer<typeof passengerSchema>;
export type SeatCounts = z.infer<typeof seatCountsSchema>;
export type FlightDateStatusAvailable = z.infer<typeof flightDateAvailableSchema>;
export type FlightDateStatus = z.infer<typeof flightDateStatusSchema>;
export type Flight = z.infer<typeof flightSchema>;
export type ReservationFlight = z.infer<typeof reservationFlightSchema>;
export type User = z.infer<typeof userSchema>;
export type Reservation = z.infer<typeof reservationSchema>;

/** The three tables of the airline database, keyed by flight number, user id and reservation id. */
export type AirlineTables = { flights: Flight; users: User; reservations: Reservation };

/** Schema of the airline `db.json`; problems are reported as zod issues with their paths. */
export const databaseSchema = z.object({
  flights: z.record(z.string(), flightSchema),
  users: z.record(z.string(), userSchema),
  reservations: z.record(z.string(), reservationSchema),
});

/** One episode's airline database. */
export type AirlineState = DatabaseState<AirlineTables>;
