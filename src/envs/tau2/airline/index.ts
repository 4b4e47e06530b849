/** τ²-bench's airline domain: its database schema, the agent's fourteen tools in τ²-bench's order, and float layout. */
import type { Tau2Domain } from "../domain.js";
import { bookReservation } from "./book-reservation.js";
import { calculateTool as calculate } from "../calculate/calculate.js";
import { cancelReservation } from "./cancel-reservation.js";
import { databaseSchema, type AirlineTables } from "./database.js";
import { isAirlineFloat } from "./float-paths.js";
import { getFlightStatus } from "./get-flight-status.js";
import { getReservationDetails } from "./get-reservation-details.js";
import { getUserDetails } from "./get-user-details.js";
import { listAllAirports } from "./list-all-airports.js";
import { searchDirectFlight } from "./search-direct-flight.js";
import { searchOnestopFlight } from "./search-onestop-flight.js";
import { sendCertificate } from "./send-certificate.js";
import { transferToHumanAgents } from "./transfer-to-human-agents.js";
import { updateReservationBaggages } from "./update-reservation-baggages.js";
import { updateReservationFlights } from "./update-reservation-flights.js";
import { updateReservationPassengers } from "./update-reservation-passengers.js";

export type { AirlineTables } from "./database.js";

/** The airline domain (`AirlineTools`). */
export const airlineDomain: Tau2Domain<AirlineTables> = {
  name: "airline",
  className: "AirlineTools",
  databaseSchema,
  tools: [
    bookReservation,
    calculate,
    cancelReservation,
    getReservationDetails,
    getUserDetails,
    listAllAirports,
    searchDirectFlight,
    searchOnestopFlight,
    sendCertificate,
    transferToHumanAgents,
    updateReservationBaggages,
    updateReservationFlights,
    updateReservationPassengers,
    getFlightStatus,
  ],
  isFloat: isAirlineFloat,
};
