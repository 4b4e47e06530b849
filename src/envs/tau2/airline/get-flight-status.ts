/** `get_flight_status`: the status string of a flight on a date (`available`, `landed`, `cancelled`, …). */
import type { AirlineTool } from "./airline-tool.js";
import { getFlightInstance } from "./lookups.js";
import { parametersSchema, stringProperty } from "../tool-parameters.js";

export const getFlightStatus: AirlineTool = {
  name: "get_flight_status",
  kind: "read",
  description: "Get the status of a flight.",
  parameters: parametersSchema({
    flight_number: stringProperty("The flight number.", "Flight Number"),
    date: stringProperty("The date of the flight.", "Date"),
  }),
  run(state, args) {
    return getFlightInstance(state, args.flight_number as string, args.date as string).status;
  },
};
