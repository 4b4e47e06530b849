/** `update_reservation_passengers`: replaces the passengers' details; the number of passengers cannot change. */
import { ToolError } from "../../core/tool-error.js";
import type { AirlineTool } from "./airline-tool.js";
import { passengerModel } from "./argument-models.js";
import { getReservation } from "./lookups.js";
import { dumpReservation } from "./model-dumps.js";
import { modelOrDictList, passengerDefinition } from "./parameter-definitions.js";
import { parametersSchema, stringProperty } from "../tool-parameters.js";
import { buildModel } from "./pydantic-model.js";

export const updateReservationPassengers: AirlineTool = {
  name: "update_reservation_passengers",
  kind: "write",
  description: "Update the passenger information of a reservation.",
  parameters: parametersSchema(
    {
      reservation_id: stringProperty("The reservation ID, such as 'ZFA04Y'.", "Reservation Id"),
      passengers: modelOrDictList(
        "Passenger",
        "An array of objects containing details about each passenger.",
        "Passengers",
      ),
    },
    { Passenger: passengerDefinition },
  ),
  run(state, args) {
    const reservationId = args.reservation_id as string;
    const passengers = (args.passengers as unknown[]).map((item) => buildModel(passengerModel, item));
    const current = getReservation(state, reservationId);
    if (passengers.length !== current.passengers.length) {
      throw new ToolError("Number of passengers does not match");
    }
    const reservation = state.edit("reservations", reservationId);
    reservation.passengers = passengers;
    return dumpReservation(reservation);
  },
};
