/** `get_reservation_details`: one reservation as τ²-bench dumps it. */
import type { AirlineTool } from "./airline-tool.js";
import { getReservation } from "./lookups.js";
import { dumpReservation } from "./model-dumps.js";
import { parametersSchema, stringProperty } from "../tool-parameters.js";

export const getReservationDetails: AirlineTool = {
  name: "get_reservation_details",
  kind: "read",
  description: "Get the details of a reservation.",
  parameters: parametersSchema({
    reservation_id: stringProperty("The reservation ID, such as '8JX2WO'.", "Reservation Id"),
  }),
  run(state, args) {
    return dumpReservation(getReservation(state, args.reservation_id as string));
  },
};
