/** `search_direct_flight`: available direct flights between two airports on a date. */
import type { AirlineTool } from "./airline-tool.js";
import { searchDirectFlights } from "./direct-flight-search.js";
import { parametersSchema, stringProperty } from "../tool-parameters.js";

export const searchDirectFlight: AirlineTool = {
  name: "search_direct_flight",
  kind: "read",
  description: "Search for direct flights between two cities on a specific date.",
  parameters: parametersSchema({
    origin: stringProperty("The origin city airport in three letters, such as 'JFK'.", "Origin"),
    destination: stringProperty("The destination city airport in three letters, such as 'LAX'.", "Destination"),
    date: stringProperty("The date of the flight in the format 'YYYY-MM-DD', such as '2024-01-01'.", "Date"),
  }),
  run(state, args) {
    return searchDirectFlights(state, {
      date: args.date as string,
      origin: args.origin as string,
      destination: args.destination as string,
      leaveAfter: null,
    });
  },
};
