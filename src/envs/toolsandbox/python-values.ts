/**
 * The few Python semantics ToolSandbox's evaluation leans on: `==` across ints, floats and bools, `float()` and `int()`
 * conversions with their exception types, `f"{x:.Nf}"`, and `str.format` with named fields.
 */
import { binaryParts } from "../core/exact-float.js";
import { pythonFloatRepr } from "../core/python-json.js";
import { TraceError } from "../../spec/trace-error.js";

/** A Python exception raised while ToolSandbox evaluates or runs a tool (`KeyError`, `TypeError`, …), by type name. */
export class PythonException extends TraceError {
  override readonly name = "PythonException";
  constructor(
    readonly pythonType: string,
    readonly detail: string,
  ) {
    super(`${pythonType}: ${detail}`, { category: "data" });
  }

  static override isInstance(value: unknown): value is PythonException {
    return value instanceof Error && value.name === "PythonException";
  }
}

/** Stands for an argument a tool trace does not have (`NOT_GIVEN`): equal to nothing. */
export const NOT_GIVEN: unique symbol = Symbol("NOT_GIVEN");

/** Python's `==` on JSON-like values: `1 == 1.0 == True`, lists and dicts compared deeply, `NOT_GIVEN` equal to nothing. */
export function pythonEquals(left: unknown, right: unknown): boolean {
  if (left === NOT_GIVEN || right === NOT_GIVEN) return false;
  const leftNumber = typeof left === "boolean" ? Number(left) : left;
  const rightNumber = typeof right === "boolean" ? Number(right) : right;
  if (typeof leftNumber === "number" && typeof rightNumber === "number") return leftNumber === rightNumber;
  if (left === null || right === null) return left === right;
  if (typeof left === "string" || typeof right === "string") return left === right;
  if (Array.isArray(left) || Array.isArray(right)) {
    if (!Array.isArray(left) || !Array.isArray(right) || left.length !== right.length) return false;
    return left.every((item, index) => pythonEquals(item, right[index]));
  }
  if (typeof left === "object" && typeof right === "object") {
    const leftRecord = left as Record<string, unknown>;
    const rightRecord = right as Record<string, unknown>;
    const keys = Object.keys(leftRecord);
    if (keys.length !== Object.keys(rightRecord).length) return false;
    return keys.every((key) => Object.hasOwn(rightRecord, key) && pythonEquals(leftRecord[key], rightRecord[key]));
  }
  return false;
}

/** Whether a value is a Python int or float (bools included, as `isinstance(x, (int, float))` says). */
export function isPythonNumber(value: unknown): value is number | boolean {
  return typeof value === "number" || typeof value === "boolean";
}

/** ToolSandbox's `is_close`: within `atol` when both are numbers and a tolerance is given, else `==`. */
export function isClose(value: unknown, reference: unknown, atol: number | undefined): boolean {
  if (atol !== undefined && isPythonNumber(value) && isPythonNumber(reference)) return Math.abs(Number(value) - Number(reference)) <= atol;
  return pythonEquals(value, reference);
}

const FLOAT_LITERAL = /^[+-]?((\d(_?\d)*)?\.?\d(_?\d)*([eE][+-]?\d(_?\d)*)?|(\d(_?\d)*)\.([eE][+-]?\d(_?\d)*)?)$/;

/** Python's `float(x)` for JSON-like values. */
export function pythonFloat(value: unknown): number {
  if (typeof value === "boolean") return Number(value);
  if (typeof value === "number") return value;
  if (typeof value === "string") {
    const text = value.trim();
    const lowered = text.toLowerCase();
    if (/^[+-]?(inf|infinity)$/.test(lowered)) return lowered.startsWith("-") ? -Infinity : Infinity;
    if (/^[+-]?nan$/.test(lowered)) return NaN;
    if (FLOAT_LITERAL.test(text)) return Number(text.replaceAll("_", ""));
    throw new PythonException("ValueError", `could not convert string to float: ${JSON.stringify(value)}`);
  }
  throw new PythonException("TypeError", "float() argument must be a string or a real number");
}

/** Python's `int(x)` for JSON-like values (floats truncate toward zero). */
export function pythonInt(value: unknown): number {
  if (typeof value === "boolean") return Number(value);
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new PythonException(Number.isNaN(value) ? "ValueError" : "OverflowError", "cannot convert float to integer");
    return Math.trunc(value);
  }
  if (typeof value === "string") {
    const text = value.trim();
    if (/^[+-]?\d(_?\d)*$/.test(text)) return Number(text.replaceAll("_", ""));
    throw new PythonException("ValueError", `invalid literal for int() with base 10: ${JSON.stringify(value)}`);
  }
  throw new PythonException("TypeError", "int() argument must be a string, a bytes-like object or a real number");
}

/** Python's `f"{value:.{digits}f}"`: the exact binary value rounded to `digits` decimals, ties to even. */
export function pythonFixed(value: number, digits: number): string {
  if (Number.isNaN(value)) return "nan";
  if (!Number.isFinite(value)) return value > 0 ? "inf" : "-inf";
  const negative = value < 0 || Object.is(value, -0);
  let units: bigint;
  if (value === 0) units = 0n;
  else {
    const [mantissa, exponent] = binaryParts(Math.abs(value));
    const scaled = mantissa * 5n ** BigInt(digits);
    const shift = exponent + digits;
    if (shift >= 0) units = scaled << BigInt(shift);
    else {
      const denominator = 1n << BigInt(-shift);
      units = scaled / denominator;
      const twiceRemainder = (scaled % denominator) * 2n;
      if (twiceRemainder > denominator || (twiceRemainder === denominator && units % 2n === 1n)) units += 1n;
    }
  }
  const text = units.toString().padStart(digits + 1, "0");
  const body = digits === 0 ? text : `${text.slice(0, text.length - digits)}.${text.slice(text.length - digits)}`;
  return negative ? `-${body}` : body;
}

/** Python's `str(x)` for the values extractors produce (ints, floats, strings). */
export function pythonStr(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "boolean") return value ? "True" : "False";
  if (value === null || value === undefined) return "None";
  if (typeof value === "number") return Number.isInteger(value) && Math.abs(value) < 1e16 ? String(value) : pythonFloatRepr(value);
  return JSON.stringify(value);
}

/** `template.format(**values)` for named fields (`{name}`, `{{`, `}}`): a missing name raises `KeyError`. */
export function pythonFormat(template: string, values: Record<string, unknown>): string {
  let out = "";
  for (let index = 0; index < template.length; index++) {
    const character = template[index] as string;
    if (character === "{") {
      if (template[index + 1] === "{") {
        out += "{";
        index++;
        continue;
      }
      const end = template.indexOf("}", index);
      if (end < 0) throw new PythonException("ValueError", "expected '}' before end of string");
      const field = template.slice(index + 1, end);
      if (field === "" || /^\d+$/.test(field)) throw new PythonException("IndexError", "Replacement index out of range for positional args tuple");
      if (!/^[A-Za-z_]\w*$/.test(field)) throw new PythonException("ValueError", `unsupported format field ${JSON.stringify(field)}`);
      if (!Object.hasOwn(values, field)) throw new PythonException("KeyError", `'${field}'`);
      out += pythonStr(values[field]);
      index = end;
    } else if (character === "}") {
      if (template[index + 1] !== "}") throw new PythonException("ValueError", "Single '}' encountered in format string");
      out += "}";
      index++;
    } else out += character;
  }
  return out;
}
