/** `update_reservation_baggages`: sets the bag counts, charging $50 per added non-free bag. */
import type { AirlineTool } from "./airline-tool.js";
import { getReservation, getUser } from "./lookups.js";
import { dumpReservation } from "./model-dumps.js";
import { integerProperty, parametersSchema, stringProperty } from "../tool-parameters.js";
import { paymentForUpdate } from "./payment-for-update.js";

const NONFREE_BAGGAGE_FEE = 50;

export const updateReservationBaggages: AirlineTool = {
  name: "update_reservation_baggages",
  kind: "write",
  description: "Update the baggage information of a reservation.",
  parameters: parametersSchema({
    reservation_id: stringProperty("The reservation ID, such as 'ZFA04Y'", "Reservation Id"),
    total_baggages: integerProperty(
      "The updated total number of baggage items included in the reservation.",
      "Total Baggages",
    ),
    nonfree_baggages: integerProperty(
      "The updated number of non-free baggage items included in the reservation.",
      "Nonfree Baggages",
    ),
    payment_id: stringProperty(
      "The payment id stored in user profile, such as 'credit_card_7815826', 'gift_card_7815826', " +
        "'certificate_7815826'.",
      "Payment Id",
    ),
  }),
  run(state, args) {
    const reservationId = args.reservation_id as string;
    const totalBaggages = args.total_baggages as number;
    const nonfreeBaggages = args.nonfree_baggages as number;
    const current = getReservation(state, reservationId);
    getUser(state, current.user_id);
    // Removing bags refunds nothing.
    const totalPrice = NONFREE_BAGGAGE_FEE * Math.max(0, nonfreeBaggages - current.nonfree_baggages);
    const payment = paymentForUpdate(state, current.user_id, args.payment_id as string, totalPrice);
    const reservation = state.edit("reservations", reservationId);
    if (payment !== null) reservation.payment_history.push(payment);
    reservation.total_baggages = totalBaggages;
    reservation.nonfree_baggages = nonfreeBaggages;
    return dumpReservation(reservation);
  },
};
