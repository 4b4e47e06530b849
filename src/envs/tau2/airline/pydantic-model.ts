/**
 * Building τ²-bench's small argument models (`FlightInfo(**flight)`, `Passenger(**p)`, `Payment(**p)`) from JSON
 * objects the way pydantic 2.10 does in lax mode: extra keys ignored, `"5"` accepted for an int, and failures reported
 * with pydantic's `ValidationError` text.
 */
import { ToolError } from "../../core/tool-error.js";
import { pythonRepr, pythonTypeName } from "./python-repr.js";

/** The pydantic release τ²-bench pins (pdm.lock: pydantic 2.10.6); it appears in the error links. */
const PYDANTIC_DOCS_VERSION = "2.10";
/** pydantic-core truncates an `input_value` repr longer than this many bytes. */
const INPUT_VALUE_MAX_BYTES = 50;

/** `str`, `int`, or a `Literal[...]` of strings (its allowed values in declaration order). */
type FieldType = "str" | "int" | { literal: readonly string[] };

/** A pydantic model with `str`, `int` and string-literal fields, listed in declaration order. */
export interface ModelSpec<Shape> {
  name: string;
  fields: readonly { name: keyof Shape & string; type: FieldType }[];
}

interface FieldError {
  field: string;
  message: string;
  type: string;
  input: unknown;
}

const utf8 = new TextEncoder();

/** pydantic-core's `truncate_safe_repr`: the first 25 and last 24 bytes around `...`, on character boundaries. */
function truncatedRepr(value: unknown): string {
  const text = pythonRepr(value);
  if (utf8.encode(text).length <= INPUT_VALUE_MAX_BYTES) return text;
  const characters = [...text];
  const headLimit = Math.ceil(INPUT_VALUE_MAX_BYTES / 2);
  const tailLimit = headLimit - 1;
  let head = "";
  let headBytes = 0;
  for (const char of characters) {
    const size = utf8.encode(char).length;
    if (headBytes + size > headLimit) break;
    head += char;
    headBytes += size;
  }
  let tail = "";
  let tailBytes = 0;
  for (let index = characters.length - 1; index >= 0; index--) {
    const char = characters[index] as string;
    const size = utf8.encode(char).length;
    if (tailBytes + size > tailLimit) break;
    tail = char + tail;
    tailBytes += size;
  }
  return `${head}...${tail}`;
}

/** pydantic's lax `str`: only strings pass (numbers and booleans are not converted). */
function validateString(value: unknown): string | Omit<FieldError, "field"> {
  if (typeof value === "string") return value;
  return { message: "Input should be a valid string", type: "string_type", input: value };
}

const INTEGER_STRING = /^[+-]?[0-9](?:_?[0-9])*(?:\.0+)?$/;

/** pydantic's lax `int`: ints, booleans, integral floats and strings such as `" 12 "`, `"1_000"`, `"3.0"`. */
function validateInteger(value: unknown): number | Omit<FieldError, "field"> {
  if (typeof value === "boolean") return value ? 1 : 0;
  if (typeof value === "number") {
    if (!Number.isFinite(value)) {
      return { message: "Input should be a finite number", type: "finite_number", input: value };
    }
    if (!Number.isInteger(value)) {
      return {
        message: "Input should be a valid integer, got a number with a fractional part",
        type: "int_from_float",
        input: value,
      };
    }
    return value === 0 ? 0 : value;
  }
  if (typeof value === "string") {
    const trimmed = value.trim();
    if (INTEGER_STRING.test(trimmed)) {
      const parsed = Number(trimmed.replaceAll("_", ""));
      return parsed === 0 ? 0 : parsed;
    }
    return {
      message: "Input should be a valid integer, unable to parse string as an integer",
      type: "int_parsing",
      input: value,
    };
  }
  return { message: "Input should be a valid integer", type: "int_type", input: value };
}

/** pydantic's `Literal[...]` of strings: "Input should be 'a', 'b' or 'c'". */
function validateLiteral(value: unknown, allowed: readonly string[]): string | Omit<FieldError, "field"> {
  if (typeof value === "string" && allowed.includes(value)) return value;
  const quoted = allowed.map((option) => `'${option}'`);
  const expected = quoted.length === 1 ? quoted[0] : `${quoted.slice(0, -1).join(", ")} or ${quoted.at(-1)}`;
  return { message: `Input should be ${expected}`, type: "literal_error", input: value };
}

function formatError(error: FieldError): string {
  return (
    `${error.field}\n  ${error.message} [type=${error.type}, input_value=${truncatedRepr(error.input)}, ` +
    `input_type=${pythonTypeName(error.input)}]\n` +
    `    For further information visit https://errors.pydantic.dev/${PYDANTIC_DOCS_VERSION}/v/${error.type}`
  );
}

/**
 * `Model(**input)`: the validated fields in declaration order, or a `ToolError` carrying pydantic's
 * `N validation error(s) for Model` text.
 */
export function buildModel<Shape>(spec: ModelSpec<Shape>, input: unknown): Shape {
  if (input === null || typeof input !== "object" || Array.isArray(input)) {
    // τ²-bench only builds models when every item is a dict; the tool's JSON schema rejects other items first.
    throw new ToolError(`'${pythonTypeName(input)}' object is not a mapping`);
  }
  const record = input as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  const errors: FieldError[] = [];
  for (const field of spec.fields) {
    if (!Object.hasOwn(record, field.name)) {
      errors.push({ field: field.name, message: "Field required", type: "missing", input: record });
      continue;
    }
    const value = record[field.name];
    const result =
      field.type === "str" ? validateString(value) : field.type === "int" ? validateInteger(value) : validateLiteral(value, field.type.literal);
    if (typeof result === "object") errors.push({ field: field.name, ...result });
    else out[field.name] = result;
  }
  if (errors.length > 0) {
    const count = errors.length;
    const header = `${count} validation error${count === 1 ? "" : "s"} for ${spec.name}`;
    throw new ToolError([header, ...errors.map(formatError)].join("\n"));
  }
  return out as Shape;
}
