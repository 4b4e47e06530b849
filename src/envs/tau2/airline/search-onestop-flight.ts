/**
 * `search_onestop_flight`: pairs of available flights through one connecting airport, with τ²-bench's quirks kept: a
 * first leg arriving `+1` day looks for the second leg on `2024-05-{int(date[-2:]) + 1}` (no zero padding, no month
 * roll-over), and the second leg must depart at or after the first leg's arrival compared as strings.
 */
import { ToolError } from "../../core/tool-error.js";
import type { AirlineTool } from "./airline-tool.js";
import { searchDirectFlights } from "./direct-flight-search.js";
import type { DirectFlight } from "./model-dumps.js";
import { parametersSchema, stringProperty } from "../tool-parameters.js";
import { pythonStringRepr } from "./python-repr.js";

const PYTHON_INT_LITERAL = /^[+-]?[0-9](?:_?[0-9])*$/;

/** Python's `int(text)` for base 10 (surrounding whitespace, a sign and single underscores allowed). */
function pythonInt(text: string): number {
  const trimmed = text.trim();
  if (!PYTHON_INT_LITERAL.test(trimmed)) {
    throw new ToolError(`invalid literal for int() with base 10: ${pythonStringRepr(text)}`);
  }
  return Number(trimmed.replaceAll("_", ""));
}

/** The date τ²-bench searches for the second leg of a connection. */
export function connectionDate(date: string, firstLegArrival: string): string {
  return firstLegArrival.includes("+1") ? `2024-05-${pythonInt(date.slice(-2)) + 1}` : date;
}

export const searchOnestopFlight: AirlineTool = {
  name: "search_onestop_flight",
  kind: "read",
  description: "Search for one-stop flights between two cities on a specific date.",
  parameters: parametersSchema({
    origin: stringProperty("The origin city airport in three letters, such as 'JFK'.", "Origin"),
    destination: stringProperty("The destination city airport in three letters, such as 'LAX'.", "Destination"),
    date: stringProperty("The date of the flight in the format 'YYYY-MM-DD', such as '2024-05-01'.", "Date"),
  }),
  run(state, args) {
    const date = args.date as string;
    const results: [DirectFlight, DirectFlight][] = [];
    const firstLegs = searchDirectFlights(state, {
      date,
      origin: args.origin as string,
      destination: null,
      leaveAfter: null,
    });
    for (const first of firstLegs) {
      first.date = date;
      const secondDate = connectionDate(date, first.scheduled_arrival_time_est);
      const secondLegs = searchDirectFlights(state, {
        date: secondDate,
        origin: first.destination,
        destination: args.destination as string,
        leaveAfter: first.scheduled_arrival_time_est,
      });
      for (const second of secondLegs) {
        second.date = secondDate;
        results.push([first, second]);
      }
    }
    return results;
  },
};
