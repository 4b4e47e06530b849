/**
 * Records as pydantic's `model_dump()` returns them: every declared field in declaration order, optional fields as
 * null, unknown keys dropped. Tool results are built from these so that observations match τ²-bench byte for byte.
 */
import type {
  FlightDateStatusAvailable,
  Flight,
  Passenger,
  Payment,
  PaymentMethod,
  Reservation,
  ReservationFlight,
  SeatCounts,
  User,
} from "./database.js";

/** `DirectFlight.model_dump()`: a flight on one date with its seats and prices (`date` is set by one-stop search). */
export interface DirectFlight {
  flight_number: string;
  origin: string;
  destination: string;
  status: "available";
  scheduled_departure_time_est: string;
  scheduled_arrival_time_est: string;
  date: string | null;
  available_seats: SeatCounts;
  prices: SeatCounts;
}

function dumpPassenger(passenger: Readonly<Passenger>): Passenger {
  return { first_name: passenger.first_name, last_name: passenger.last_name, dob: passenger.dob };
}

function dumpPayment(payment: Readonly<Payment>): Payment {
  return { payment_id: payment.payment_id, amount: payment.amount };
}

export function dumpReservationFlight(flight: Readonly<ReservationFlight>): ReservationFlight {
  return {
    flight_number: flight.flight_number,
    origin: flight.origin,
    destination: flight.destination,
    date: flight.date,
    price: flight.price,
  };
}

function dumpPaymentMethod(method: Readonly<PaymentMethod>): PaymentMethod {
  switch (method.source) {
    case "credit_card":
      return { source: method.source, id: method.id, brand: method.brand, last_four: method.last_four };
    case "gift_card":
      return { source: method.source, id: method.id, amount: method.amount };
    case "certificate":
      return { source: method.source, id: method.id, amount: method.amount };
  }
}

export function dumpUser(user: Readonly<User>): User {
  const paymentMethods: Record<string, PaymentMethod> = {};
  for (const [id, method] of Object.entries(user.payment_methods)) paymentMethods[id] = dumpPaymentMethod(method);
  return {
    user_id: user.user_id,
    name: { first_name: user.name.first_name, last_name: user.name.last_name },
    address: {
      address1: user.address.address1,
      address2: user.address.address2 ?? null,
      city: user.address.city,
      country: user.address.country,
      state: user.address.state,
      zip: user.address.zip,
    },
    email: user.email,
    dob: user.dob,
    payment_methods: paymentMethods,
    saved_passengers: user.saved_passengers.map(dumpPassenger),
    membership: user.membership,
    reservations: [...user.reservations],
  };
}

export function dumpReservation(reservation: Readonly<Reservation>): Reservation {
  return {
    reservation_id: reservation.reservation_id,
    user_id: reservation.user_id,
    origin: reservation.origin,
    destination: reservation.destination,
    flight_type: reservation.flight_type,
    cabin: reservation.cabin,
    flights: reservation.flights.map(dumpReservationFlight),
    passengers: reservation.passengers.map(dumpPassenger),
    payment_history: reservation.payment_history.map(dumpPayment),
    created_at: reservation.created_at,
    total_baggages: reservation.total_baggages,
    nonfree_baggages: reservation.nonfree_baggages,
    insurance: reservation.insurance,
    status: reservation.status ?? null,
  };
}

/** `DirectFlight(...)` built from a flight and its available date, with `date` unset (null). */
export function directFlight(flight: Readonly<Flight>, instance: Readonly<FlightDateStatusAvailable>): DirectFlight {
  return {
    flight_number: flight.flight_number,
    origin: flight.origin,
    destination: flight.destination,
    status: "available",
    scheduled_departure_time_est: flight.scheduled_departure_time_est,
    scheduled_arrival_time_est: flight.scheduled_arrival_time_est,
    date: null,
    available_seats: { ...instance.available_seats },
    prices: { ...instance.prices },
  };
}
