/**
 * `update_reservation_flights`: replaces the reservation's flights and cabin, charging (or refunding) the price
 * difference. As in τ²-bench, flight seat counts are not updated, and a kept segment keeps its original price only
 * when the cabin is unchanged.
 */
import type { AirlineTool } from "./airline-tool.js";
import { flightInfoModel } from "./argument-models.js";
import type { CabinClass, ReservationFlight } from "./database.js";
import { getReservation, getUser } from "./lookups.js";
import { dumpReservation, dumpReservationFlight } from "./model-dumps.js";
import { CABIN_CLASSES, flightInfoDefinition, modelOrDictList } from "./parameter-definitions.js";
import { enumProperty, parametersSchema, stringProperty } from "../tool-parameters.js";
import { paymentForUpdate } from "./payment-for-update.js";
import { pricedFlight } from "./priced-flight.js";
import { buildModel } from "./pydantic-model.js";

export const updateReservationFlights: AirlineTool = {
  name: "update_reservation_flights",
  kind: "write",
  description: "Update the flight information of a reservation.",
  parameters: parametersSchema(
    {
      reservation_id: stringProperty("The reservation ID, such as 'ZFA04Y'.", "Reservation Id"),
      cabin: enumProperty("The cabin class of the reservation", CABIN_CLASSES, "Cabin"),
      flights: modelOrDictList(
        "FlightInfo",
        "An array of objects containing details about each piece of flight in the ENTIRE new reservation. " +
          "Even if the a flight segment is not changed, it should still be included in the array.",
        "Flights",
      ),
      payment_id: stringProperty(
        "The payment id stored in user profile, such as 'credit_card_7815826', 'gift_card_7815826', " +
        "'certificate_7815826'.",
        "Payment Id",
      ),
    },
    { FlightInfo: flightInfoDefinition },
  ),
  run(state, args) {
    const reservationId = args.reservation_id as string;
    const cabin = args.cabin as CabinClass;
    const flightInfos = (args.flights as unknown[]).map((item) => buildModel(flightInfoModel, item));
    const current = getReservation(state, reservationId);
    getUser(state, current.user_id);
    const passengerCount = current.passengers.length;

    let totalPrice = 0;
    const flights: ReservationFlight[] = [];
    for (const info of flightInfos) {
      const kept =
        cabin === current.cabin
          ? current.flights.find((flight) => flight.flight_number === info.flight_number && flight.date === info.date)
          : undefined;
      if (kept !== undefined) {
        totalPrice += kept.price * passengerCount;
        flights.push(dumpReservationFlight(kept));
        continue;
      }
      const segment = pricedFlight(state, info, cabin, passengerCount);
      flights.push(segment);
      totalPrice += segment.price * passengerCount;
    }
    totalPrice -= current.flights.reduce((sum, flight) => sum + flight.price, 0) * passengerCount;

    const payment = paymentForUpdate(state, current.user_id, args.payment_id as string, totalPrice);
    const reservation = state.edit("reservations", reservationId);
    if (payment !== null) reservation.payment_history.push(payment);
    reservation.flights = flights;
    reservation.cabin = cabin;
    return dumpReservation(reservation);
  },
};
