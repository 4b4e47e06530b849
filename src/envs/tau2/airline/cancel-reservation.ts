/** `cancel_reservation`: refunds every recorded payment and marks the reservation cancelled (seats stay taken). */
import type { AirlineTool } from "./airline-tool.js";
import { getReservation } from "./lookups.js";
import { dumpReservation } from "./model-dumps.js";
import { parametersSchema, stringProperty } from "../tool-parameters.js";

export const cancelReservation: AirlineTool = {
  name: "cancel_reservation",
  kind: "write",
  description: "Cancel the whole reservation.",
  parameters: parametersSchema({
    reservation_id: stringProperty("The reservation ID, such as 'ZFA04Y'.", "Reservation Id"),
  }),
  run(state, args) {
    const reservationId = args.reservation_id as string;
    getReservation(state, reservationId);
    const reservation = state.edit("reservations", reservationId);
    // Every entry is reversed, earlier refunds included (cancelling twice appends refunds of the refunds). As in
    // τ²-bench, the flights' seats are not released.
    const refunds = reservation.payment_history.map((payment) => ({
      payment_id: payment.payment_id,
      amount: 0 - payment.amount,
    }));
    reservation.payment_history.push(...refunds);
    reservation.status = "cancelled";
    return dumpReservation(reservation);
  },
};
