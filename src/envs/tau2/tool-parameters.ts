/**
 * Builders of the tools' parameter schemas as τ²-bench publishes them (pydantic `model_json_schema()` of each tool's
 * parameters), with keys in pydantic's order, shared by the airline and retail domains.
 */
import type { JsonSchema } from "../../spec/tool-spec.js";

/** A `str` field. */
export function stringProperty(description: string, title: string): JsonSchema {
  return { description, title, type: "string" };
}

/** An `int` field. */
export function integerProperty(description: string, title: string): JsonSchema {
  return { description, title, type: "integer" };
}

/** A `Literal[…]` field of strings. */
export function enumProperty(description: string, values: readonly string[], title: string): JsonSchema {
  return { description, enum: [...values], title, type: "string" };
}

/** A `List[str]` field. */
export function stringListProperty(description: string, title: string): JsonSchema {
  return { description, items: { type: "string" }, title, type: "array" };
}

/** A model's schema: `$defs` (when any), `properties`, `required` (every property, when any), `title`, `type`. */
export function modelSchema(
  title: string,
  properties: Record<string, JsonSchema>,
  definitions: Record<string, JsonSchema> = {},
): JsonSchema {
  const required = Object.keys(properties);
  return {
    ...(Object.keys(definitions).length > 0 ? { $defs: definitions } : {}),
    properties,
    ...(required.length > 0 ? { required } : {}),
    title,
    type: "object",
  };
}

/** A tool's parameters object: the model τ²-bench names `parameters`, every argument required. */
export function parametersSchema(
  properties: Record<string, JsonSchema>,
  definitions: Record<string, JsonSchema> = {},
): JsonSchema {
  return modelSchema("parameters", properties, definitions);
}
