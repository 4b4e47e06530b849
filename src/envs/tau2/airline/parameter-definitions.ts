/**
 * Pieces of the tools' JSON Schemas as τ²-bench publishes them (pydantic `model_json_schema()` of each tool's
 * parameters; MIT-licensed text from τ²-bench): the `$defs` of the argument models and the string / integer / enum
 * properties, with keys in pydantic's order.
 */
import type { JsonSchema } from "../../../spec/tool-spec.js";

export const flightInfoDefinition: JsonSchema = {
  properties: {
    flight_number: { description: "Flight number, such as 'HAT001'.", title: "Flight Number", type: "string" },
    date: {
      description: "The date for the flight in the format 'YYYY-MM-DD', such as '2024-05-01'.",
      title: "Date",
      type: "string",
    },
  },
  required: ["flight_number", "date"],
  title: "FlightInfo",
  type: "object",
};

export const passengerDefinition: JsonSchema = {
  properties: {
    first_name: { description: "Passenger's first name", title: "First Name", type: "string" },
    last_name: { description: "Passenger's last name", title: "Last Name", type: "string" },
    dob: { description: "Date of birth in YYYY-MM-DD format", title: "Dob", type: "string" },
  },
  required: ["first_name", "last_name", "dob"],
  title: "Passenger",
  type: "object",
};

export const paymentDefinition: JsonSchema = {
  properties: {
    payment_id: { description: "Unique identifier for the payment", title: "Payment Id", type: "string" },
    amount: { description: "Payment amount in dollars", title: "Amount", type: "integer" },
  },
  required: ["payment_id", "amount"],
  title: "Payment",
  type: "object",
};

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

export function stringProperty(description: string, title: string): JsonSchema {
  return { description, title, type: "string" };
}

export function integerProperty(description: string, title: string): JsonSchema {
  return { description, title, type: "integer" };
}

export function enumProperty(description: string, values: readonly string[], title: string): JsonSchema {
  return { description, enum: [...values], title, type: "string" };
}

/** The parameters object: `$defs` (when any), `properties`, `required` (when any), `title`, `type`. */
export function parametersSchema(
  properties: Record<string, JsonSchema>,
  definitions: Record<string, JsonSchema> = {},
): JsonSchema {
  const required = Object.keys(properties);
  return {
    ...(Object.keys(definitions).length > 0 ? { $defs: definitions } : {}),
    properties,
    ...(required.length > 0 ? { required } : {}),
    title: "parameters",
    type: "object",
  };
}

export const CABIN_CLASSES = ["business", "economy", "basic_economy"] as const;
export const FLIGHT_TYPES = ["round_trip", "one_way"] as const;
export const INSURANCE_OPTIONS = ["yes", "no"] as const;
