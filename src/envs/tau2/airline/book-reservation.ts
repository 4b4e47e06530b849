/** `book_reservation`: books flights for passengers, charging stored payment methods (τ²-bench's checks and order). */
import { ToolError } from "../../core/tool-error.js";
import type { AirlineTool } from "./airline-tool.js";
import { flightInfoModel, newReservationModel, passengerModel, paymentModel } from "./argument-models.js";
import type { AirlineState, CabinClass, FlightType, Insurance, Reservation, ReservationFlight } from "./database.js";
import { cabinCount, getUser } from "./lookups.js";
import { dumpReservation } from "./model-dumps.js";
import {
  CABIN_CLASSES,
  flightInfoDefinition,
  FLIGHT_TYPES,
  INSURANCE_OPTIONS,
  modelOrDictList,
  passengerDefinition,
  paymentDefinition,
} from "./parameter-definitions.js";
import { enumProperty, integerProperty, parametersSchema, stringProperty } from "../tool-parameters.js";
import { pricedFlight } from "./priced-flight.js";
import { buildModel } from "./pydantic-model.js";
import { pythonStringRepr } from "./python-repr.js";

/** The ids τ²-bench gives new reservations, in order (at most three per episode). */
const NEW_RESERVATION_IDS = ["HATHAT", "HATHAU", "HATHAV"] as const;
/** τ²-bench's fixed clock. */
const CURRENT_DATETIME = "2024-05-15T15:00:00";
const INSURANCE_FEE_PER_PASSENGER = 30;
const NONFREE_BAGGAGE_FEE = 50;

function newReservationId(state: AirlineState): string {
  const id = NEW_RESERVATION_IDS.find((candidate) => !state.has("reservations", candidate));
  if (id === undefined) throw new ToolError("Too many reservations");
  return id;
}

export const bookReservation: AirlineTool = {
  name: "book_reservation",
  kind: "write",
  description: "Book a reservation.",
  parameters: parametersSchema(
    {
      user_id: stringProperty("The ID of the user to book the reservation such as 'sara_doe_496'`.", "User Id"),
      origin: stringProperty("The IATA code for the origin city such as 'SFO'.", "Origin"),
      destination: stringProperty("The IATA code for the destination city such as 'JFK'.", "Destination"),
      flight_type: enumProperty(
        "The type of flight such as 'one_way' or 'round_trip'.",
        FLIGHT_TYPES,
        "Flight Type",
      ),
      cabin: enumProperty(
        "The cabin class such as 'basic_economy', 'economy', or 'business'.",
        CABIN_CLASSES,
        "Cabin",
      ),
      flights: modelOrDictList(
        "FlightInfo",
        "An array of objects containing details about each piece of flight.",
        "Flights",
      ),
      passengers: modelOrDictList(
        "Passenger",
        "An array of objects containing details about each passenger.",
        "Passengers",
      ),
      payment_methods: modelOrDictList(
        "Payment",
        "An array of objects containing details about each payment method.",
        "Payment Methods",
      ),
      total_baggages: integerProperty(
        "The total number of baggage items to book the reservation.",
        "Total Baggages",
      ),
      nonfree_baggages: integerProperty(
        "The number of non-free baggage items to book the reservation.",
        "Nonfree Baggages",
      ),
      insurance: enumProperty("Whether the reservation has insurance.", INSURANCE_OPTIONS, "Insurance"),
    },
    { FlightInfo: flightInfoDefinition, Passenger: passengerDefinition, Payment: paymentDefinition },
  ),
  run(state, args) {
    const userId = args.user_id as string;
    const cabin = args.cabin as CabinClass;
    const nonfreeBaggages = args.nonfree_baggages as number;
    const insurance = args.insurance as Insurance;
    const flightInfos = (args.flights as unknown[]).map((item) => buildModel(flightInfoModel, item));
    const passengers = (args.passengers as unknown[]).map((item) => buildModel(passengerModel, item));
    const payments = (args.payment_methods as unknown[]).map((item) => buildModel(paymentModel, item));
    const user = getUser(state, userId);
    const reservationId = newReservationId(state);
    buildModel(newReservationModel, args);

    // Price the flights; nothing is written until every check has passed.
    let totalPrice = 0;
    const reservationFlights: ReservationFlight[] = [];
    for (const info of flightInfos) {
      const segment = pricedFlight(state, info, cabin, passengers.length);
      reservationFlights.push(segment);
      totalPrice += segment.price * passengers.length;
    }
    if (insurance === "yes") totalPrice += INSURANCE_FEE_PER_PASSENGER * passengers.length;
    totalPrice += NONFREE_BAGGAGE_FEE * nonfreeBaggages;

    for (const payment of payments) {
      if (!Object.hasOwn(user.payment_methods, payment.payment_id)) {
        throw new ToolError(`Payment method ${payment.payment_id} not found`);
      }
      const method = user.payment_methods[payment.payment_id];
      if ((method?.source === "gift_card" || method?.source === "certificate") && method.amount < payment.amount) {
        throw new ToolError(`Not enough balance in payment method ${payment.payment_id}`);
      }
    }
    const totalPayment = payments.reduce((sum, payment) => sum + payment.amount, 0);
    if (totalPayment !== totalPrice) {
      throw new ToolError(
        `Payment amount does not add up, total price is ${totalPrice}, but paid ${totalPayment}`,
      );
    }

    // Deduct: gift cards lose the amount, certificates are used up. A certificate listed twice is already gone the
    // second time, and τ²-bench then fails with a KeyError after the first deductions were made; so does this.
    const editableUser = state.edit("users", userId);
    for (const payment of payments) {
      const method = editableUser.payment_methods[payment.payment_id];
      if (!Object.hasOwn(editableUser.payment_methods, payment.payment_id) || method === undefined) {
        throw new ToolError(pythonStringRepr(payment.payment_id));
      }
      if (method.source === "gift_card") method.amount -= payment.amount;
      else if (method.source === "certificate") delete editableUser.payment_methods[payment.payment_id];
    }

    for (const info of flightInfos) {
      const instance = state.edit("flights", info.flight_number).dates[info.date];
      if (instance?.status === "available") {
        instance.available_seats[cabin] = cabinCount(instance.available_seats, cabin) - passengers.length;
      }
    }
    const reservation: Reservation = {
      reservation_id: reservationId,
      user_id: userId,
      origin: args.origin as string,
      destination: args.destination as string,
      flight_type: args.flight_type as FlightType,
      cabin,
      flights: reservationFlights,
      passengers,
      payment_history: payments,
      created_at: CURRENT_DATETIME,
      total_baggages: args.total_baggages as number,
      nonfree_baggages: nonfreeBaggages,
      insurance,
      status: null,
    };
    state.insert("reservations", reservationId, reservation);
    editableUser.reservations.push(reservationId);
    return dumpReservation(reservation);
  },
};
