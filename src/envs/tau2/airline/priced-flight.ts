/** A new flight segment of a booking or a flight change, checked and priced as τ²-bench does. */
import { ToolError } from "../../core/tool-error.js";
import type { FlightInfo } from "./argument-models.js";
import type { AirlineState, CabinClass, ReservationFlight } from "./database.js";
import { cabinCount, getFlight, getFlightInstance } from "./lookups.js";

/**
 * The segment at the cabin's price per passenger; `Flight … not available on date …` unless the flight is available
 * that day, `Not enough seats on flight …` unless the cabin has a seat for each passenger.
 */
export function pricedFlight(
  state: AirlineState,
  info: Readonly<FlightInfo>,
  cabin: CabinClass,
  passengerCount: number,
): ReservationFlight {
  const flight = getFlight(state, info.flight_number);
  const instance = getFlightInstance(state, info.flight_number, info.date);
  if (instance.status !== "available") {
    throw new ToolError(`Flight ${info.flight_number} not available on date ${info.date}`);
  }
  if (cabinCount(instance.available_seats, cabin) < passengerCount) {
    throw new ToolError(`Not enough seats on flight ${info.flight_number}`);
  }
  return {
    flight_number: info.flight_number,
    origin: flight.origin,
    destination: flight.destination,
    date: info.date,
    price: cabinCount(instance.prices, cabin),
  };
}
