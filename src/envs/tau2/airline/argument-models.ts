/** The models τ²-bench builds from tool arguments: `FlightInfo`, `Passenger` and `Payment`. */
import type { Passenger, Payment } from "./database.js";
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
