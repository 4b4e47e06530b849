/** Python's `repr()`, `str()` and type names of parsed JSON values, for error messages worded as CPython's. */
import { pythonFloatString } from "../../core/python-json.js";
import { pythonStringRepr } from "../../core/python-string-repr.js";

export { pythonStringRepr };

/** The Python type name of a parsed JSON value (`int` for integral numbers: JSON cannot tell `1` from `1.0`). */
export function pythonTypeName(value: unknown): string {
  if (value === null || value === undefined) return "NoneType";
  if (typeof value === "boolean") return "bool";
  if (typeof value === "number") return Number.isInteger(value) ? "int" : "float";
  if (typeof value === "string") return "str";
  if (Array.isArray(value)) return "list";
  return "dict";
}


/** `str()` of a number that came from JSON: integral numbers print as Python ints, others as floats. */
export function pythonNumberString(value: number): string {
  if (Number.isInteger(value)) return BigInt(value).toString();
  return pythonFloatString(value);
}

/** `repr()` of a parsed JSON value as Python would print the same value loaded by `json.loads`. */
export function pythonRepr(value: unknown): string {
  if (value === null || value === undefined) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  if (typeof value === "number") return pythonNumberString(value);
  if (typeof value === "string") return pythonStringRepr(value);
  if (Array.isArray(value)) return `[${value.map(pythonRepr).join(", ")}]`;
  if (typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>);
    return `{${entries.map(([key, item]) => `${pythonStringRepr(key)}: ${pythonRepr(item)}`).join(", ")}}`;
  }
  if (typeof value === "bigint") return value.toString();
  throw new TypeError(`no Python repr for a ${typeof value}`);
}
