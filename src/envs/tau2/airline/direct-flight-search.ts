/** `_search_direct_flight`: available flights on a date, optionally filtered by airports and earliest departure. */
import type { AirlineState } from "./database.js";
import { directFlight, type DirectFlight } from "./model-dumps.js";

export interface DirectFlightQuery {
  date: string;
  origin: string | null;
  destination: string | null;
  /** Earliest scheduled departure, compared as a string (`"03:00:00+1"` sorts before `"05:00:00"`). */
  leaveAfter: string | null;
}

/** Flights in database order whose date record is `available` and that match every given filter. */
export function searchDirectFlights(state: AirlineState, query: DirectFlightQuery): DirectFlight[] {
  const results: DirectFlight[] = [];
  for (const flight of state.values("flights")) {
    if (query.origin !== null && flight.origin !== query.origin) continue;
    if (query.destination !== null && flight.destination !== query.destination) continue;
    if (!Object.hasOwn(flight.dates, query.date)) continue;
    const instance = flight.dates[query.date];
    if (instance?.status !== "available") continue;
    if (query.leaveAfter !== null && !(flight.scheduled_departure_time_est >= query.leaveAfter)) continue;
    results.push(directFlight(flight, instance));
  }
  return results;
}
