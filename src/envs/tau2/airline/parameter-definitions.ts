/**
 * The airline-only pieces of the tools' JSON Schemas as τ²-bench publishes them (MIT-licensed text from τ²-bench):
 * the `$defs` of the argument models, `List[Model | dict]` properties and the enum values.
 */
import type { JsonSchema } from "../../../spec/tool-spec.js";
import { integerProperty, modelSchema, stringProperty } from "../tool-parameters.js";

/** `FlightInfo.model_json_schema()`. */
export const flightInfoDefinition: JsonSchema = modelSchema("FlightInfo", {
  flight_number: stringProperty("Flight number, such as 'HAT001'.", "Flight Number"),
  date: stringProperty("The date for the flight in the format 'YYYY-MM-DD', such as '2024-05-01'.", "Date"),
});

/** `Passenger.model_json_schema()`. */
export const passengerDefinition: JsonSchema = modelSchema("Passenger", {
  first_name: stringProperty("Passenger's first name", "First Name"),
  last_name: stringProperty("Passenger's last name", "Last Name"),
  dob: stringProperty("Date of birth in YYYY-MM-DD format", "Dob"),
});

/** `Payment.model_json_schema()`. */
export const paymentDefinition: JsonSchema = modelSchema("Payment", {
  payment_id: stringProperty("Unique identifier for the payment", "Payment Id"),
  amount: integerProperty("Payment amount in dollars", "Amount"),
});

/**
 * `List[Model | dict]`: an array whose items are the model or any object (pydantic 2.10, which τ²-bench pins, writes
 * `{"type": "object"}` for `dict`; later releases add `"additionalProperties": true`).
 */
export function modelOrDictList(definition: string, description: string, title: string): JsonSchema {
  return {
    description,
    items: { anyOf: [{ $ref: `#/$defs/${definition}` }, { type: "object" }] },
    title,
    type: "array",
  };
}

/** `CabinClass` literals, in τ²-bench's order. */
export const CABIN_CLASSES = ["business", "economy", "basic_economy"] as const;
/** `FlightType` literals, in τ²-bench's order. */
export const FLIGHT_TYPES = ["round_trip", "one_way"] as const;
/** `Insurance` literals, in τ²-bench's order. */
export const INSURANCE_OPTIONS = ["yes", "no"] as const;
