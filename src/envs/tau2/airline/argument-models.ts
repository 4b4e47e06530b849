/** The models τ²-bench builds from tool arguments: `FlightInfo`, `Passenger`, `Payment`, and the new `Reservation`. */
import type { Passenger, Payment } from "./database.js";
import { CABIN_CLASSES, FLIGHT_TYPES, INSURANCE_OPTIONS } from "./parameter-definitions.js";
import type { ModelSpec } from "./pydantic-model.js";

/** A flight segment named by the agent (`FlightInfo`). */
export interface FlightInfo {
  flight_number: string;
  date: string;
}

export const flightInfoModel: ModelSpec<FlightInfo> = {
  name: "FlightInfo",
  fields: [
    { name: "flight_number", type: "str" },
    { name: "date", type: "str" },
  ],
};

export const passengerModel: ModelSpec<Passenger> = {
  name: "Passenger",
  fields: [
    { name: "first_name", type: "str" },
    { name: "last_name", type: "str" },
    { name: "dob", type: "str" },
  ],
};

export const paymentModel: ModelSpec<Payment> = {
  name: "Payment",
  fields: [
    { name: "payment_id", type: "str" },
    { name: "amount", type: "int" },
  ],
};

/**
 * The scalar fields of `Reservation` that `book_reservation` fills from its arguments, in declaration order:
 * constructing the reservation validates them (e.g. an unknown cabin is a `literal_error`) before any flight is priced.
 */
export const newReservationModel: ModelSpec<{
  user_id: string;
  origin: string;
  destination: string;
  flight_type: string;
  cabin: string;
  total_baggages: number;
  nonfree_baggages: number;
  insurance: string;
}> = {
  name: "Reservation",
  fields: [
    { name: "user_id", type: "str" },
    { name: "origin", type: "str" },
    { name: "destination", type: "str" },
    { name: "flight_type", type: { literal: FLIGHT_TYPES } },
    { name: "cabin", type: { literal: CABIN_CLASSES } },
    { name: "total_baggages", type: "int" },
    { name: "nonfree_baggages", type: "int" },
    { name: "insurance", type: { literal: INSURANCE_OPTIONS } },
  ],
};
