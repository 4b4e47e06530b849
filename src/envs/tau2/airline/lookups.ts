/** Record look-ups shared by the airline tools, refusing with τ²-bench's messages (`User x not found`, …). */
import { ToolError } from "../../core/tool-error.js";
import type { AirlineState, CabinClass, Flight, FlightDateStatus, Reservation, SeatCounts, User } from "./database.js";
import { pythonStringRepr } from "./python-repr.js";

/** `_get_user`. */
export function getUser(state: AirlineState, userId: string): Readonly<User> {
  const user = state.get("users", userId);
  if (user === undefined) throw new ToolError(`User ${userId} not found`);
  return user;
}

/** `_get_reservation`. */
export function getReservation(state: AirlineState, reservationId: string): Readonly<Reservation> {
  const reservation = state.get("reservations", reservationId);
  if (reservation === undefined) throw new ToolError(`Reservation ${reservationId} not found`);
  return reservation;
}

/** `_get_flight`. */
export function getFlight(state: AirlineState, flightNumber: string): Readonly<Flight> {
  const flight = state.get("flights", flightNumber);
  if (flight === undefined) throw new ToolError(`Flight ${flightNumber} not found`);
  return flight;
}

/** `_get_flight_instance`: the flight's status record on one date. */
export function getFlightInstance(state: AirlineState, flightNumber: string, date: string): Readonly<FlightDateStatus> {
  const flight = getFlight(state, flightNumber);
  if (!Object.hasOwn(flight.dates, date)) throw new ToolError(`Flight ${flightNumber} not found on date ${date}`);
  return flight.dates[date] as FlightDateStatus;
}

/** `counts[cabin]`; a cabin missing from the record fails as Python's `KeyError` does (message `'economy'`). */
export function cabinCount(counts: Readonly<SeatCounts>, cabin: CabinClass): number {
  const count = counts[cabin];
  if (count === undefined) throw new ToolError(pythonStringRepr(cabin));
  return count;
}
