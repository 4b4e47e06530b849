/** `list_all_airports`: τ²-bench's fixed list of twenty airports (not derived from the flights). */
import type { AirlineTool } from "./airline-tool.js";
import { parametersSchema } from "../tool-parameters.js";

/** `AirportCode` records in τ²-bench's order. */
const AIRPORTS: readonly { iata: string; city: string }[] = [
  { iata: "SFO", city: "San Francisco" },
  { iata: "JFK", city: "New York" },
  { iata: "LAX", city: "Los Angeles" },
  { iata: "ORD", city: "Chicago" },
  { iata: "DFW", city: "Dallas" },
  { iata: "DEN", city: "Denver" },
  { iata: "SEA", city: "Seattle" },
  { iata: "ATL", city: "Atlanta" },
  { iata: "MIA", city: "Miami" },
  { iata: "BOS", city: "Boston" },
  { iata: "PHX", city: "Phoenix" },
  { iata: "IAH", city: "Houston" },
  { iata: "LAS", city: "Las Vegas" },
  { iata: "MCO", city: "Orlando" },
  { iata: "EWR", city: "Newark" },
  { iata: "CLT", city: "Charlotte" },
  { iata: "MSP", city: "Minneapolis" },
  { iata: "DTW", city: "Detroit" },
  { iata: "PHL", city: "Philadelphia" },
  { iata: "LGA", city: "LaGuardia" },
];

export const listAllAirports: AirlineTool = {
  name: "list_all_airports",
  kind: "read",
  description: "Returns a list of all available airports.",
  parameters: parametersSchema({}),
  run() {
    return AIRPORTS.map((airport) => ({ iata: airport.iata, city: airport.city }));
  },
};
