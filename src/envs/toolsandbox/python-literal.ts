/**
 * Python values as ToolSandbox's tools see and print them: JSON tool arguments parsed as `json.loads` does (ints and
 * floats kept apart), `repr()` of results (what the execution environment prints back to the agent), and
 * `json.dumps(..., ensure_ascii=False)` of tool traces. Written by hand: the distinction between `1` and `1.0` is
 * lost by `JSON.parse` and no library prints CPython's `repr`.
 */
import { pythonFloatRepr, pythonFloatString } from "../core/python-json.js";
import { pythonStringRepr } from "../core/python-string-repr.js";
import { PythonException } from "./python-values.js";

export { pythonStringRepr };

/** A Python float (JavaScript numbers alone stand for Python ints). */
export class PyFloat {
  constructor(readonly value: number) {}
}

/** A Python value: None, bool, int (number), float, str, list or dict. */
export type PyValue = null | boolean | number | PyFloat | string | PyValue[] | { [key: string]: PyValue };

/** The number of an int or float, else undefined. */
export function pyNumber(value: PyValue | undefined): number | undefined {
  if (typeof value === "number") return value;
  if (value instanceof PyFloat) return value.value;
  return undefined;
}

/** Plain JSON data from a Python value (floats become numbers). */
export function toJson(value: PyValue): unknown {
  if (value instanceof PyFloat) return value.value;
  if (Array.isArray(value)) return value.map(toJson);
  if (value !== null && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, toJson(item)]));
  return value;
}

/** `json.loads(text)` keeping floats apart from ints; malformed text raises `JSONDecodeError`. */
export function parsePythonJson(text: string): PyValue {
  let position = 0;
  const fail = (what: string): never => {
    throw new PythonException("JSONDecodeError", `${what}: line 1 column ${position + 1} (char ${position})`);
  };
  const skip = () => {
    while (position < text.length && " \t\n\r".includes(text[position] as string)) position++;
  };
  const parseValue = (): PyValue => {
    skip();
    const character = text[position];
    if (character === "{") {
      position++;
      const out: { [key: string]: PyValue } = {};
      skip();
      if (text[position] === "}") {
        position++;
        return out;
      }
      for (;;) {
        skip();
        if (text[position] !== '"') fail("Expecting property name enclosed in double quotes");
        const key = parseString();
        skip();
        if (text[position] !== ":") fail("Expecting ':' delimiter");
        position++;
        out[key] = parseValue();
        skip();
        if (text[position] === ",") {
          position++;
          continue;
        }
        if (text[position] === "}") {
          position++;
          return out;
        }
        fail("Expecting ',' delimiter");
      }
    }
    if (character === "[") {
      position++;
      const out: PyValue[] = [];
      skip();
      if (text[position] === "]") {
        position++;
        return out;
      }
      for (;;) {
        out.push(parseValue());
        skip();
        if (text[position] === ",") {
          position++;
          continue;
        }
        if (text[position] === "]") {
          position++;
          return out;
        }
        fail("Expecting ',' delimiter");
      }
    }
    if (character === '"') return parseString();
    for (const [literal, value] of [["true", true], ["false", false], ["null", null], ["NaN", new PyFloat(NaN)], ["Infinity", new PyFloat(Infinity)], ["-Infinity", new PyFloat(-Infinity)]] as const) {
      if (text.startsWith(literal, position)) {
        position += literal.length;
        return value;
      }
    }
    const match = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(position));
    if (match === null) return fail("Expecting value");
    position += match[0].length;
    return match[2] !== undefined || match[3] !== undefined ? new PyFloat(Number(match[0])) : Number(match[0]);
  };
  const parseString = (): string => {
    const start = position;
    position++;
    while (position < text.length && text[position] !== '"') {
      if ((text.codePointAt(position) as number) < 0x20) fail("Invalid control character at");
      position += text[position] === "\\" ? 2 : 1;
    }
    if (position >= text.length) fail("Unterminated string starting at");
    position++;
    try {
      return JSON.parse(text.slice(start, position)) as string;
    } catch {
      return fail("Invalid \\escape");
    }
  };
  const value = parseValue();
  skip();
  if (position !== text.length) fail("Extra data");
  return value;
}

/** Python's `repr(value)`. */
export function pythonRepr(value: PyValue): string {
  if (value === null) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  if (typeof value === "number") return String(value);
  if (value instanceof PyFloat) return pythonFloatString(value.value);
  if (typeof value === "string") return pythonStringRepr(value);
  if (Array.isArray(value)) return `[${value.map(pythonRepr).join(", ")}]`;
  return `{${Object.entries(value).map(([key, item]) => `${pythonStringRepr(key)}: ${pythonRepr(item)}`).join(", ")}}`;
}

function jsonString(text: string): string {
  let out = '"';
  for (const character of text) {
    const code = character.codePointAt(0) as number;
    if (character === '"') out += '\\"';
    else if (character === "\\") out += "\\\\";
    else if (character === "\n") out += "\\n";
    else if (character === "\r") out += "\\r";
    else if (character === "\t") out += "\\t";
    else if (character === "\b") out += "\\b";
    else if (character === "\f") out += "\\f";
    else if (code < 0x20) out += `\\u${code.toString(16).padStart(4, "0")}`;
    else out += character;
  }
  return out + '"';
}

/** `json.dumps(value, ensure_ascii=False)`. */
export function pythonJsonDumpsUnicode(value: PyValue): string {
  if (value === null) return "null";
  if (value === true) return "true";
  if (value === false) return "false";
  if (typeof value === "number") return String(value);
  if (value instanceof PyFloat) {
    if (Number.isNaN(value.value)) return "NaN";
    if (!Number.isFinite(value.value)) return value.value > 0 ? "Infinity" : "-Infinity";
    return pythonFloatRepr(value.value);
  }
  if (typeof value === "string") return jsonString(value);
  if (Array.isArray(value)) return `[${value.map(pythonJsonDumpsUnicode).join(", ")}]`;
  return `{${Object.entries(value).map(([key, item]) => `${jsonString(key)}: ${pythonJsonDumpsUnicode(item)}`).join(", ")}}`;
}

/** The Python type name of a value (`type(x).__name__`). */
export function pythonTypeName(value: PyValue): string {
  if (value === null) return "NoneType";
  if (typeof value === "boolean") return "bool";
  if (typeof value === "number") return "int";
  if (value instanceof PyFloat) return "float";
  if (typeof value === "string") return "str";
  if (Array.isArray(value)) return "list";
  return "dict";
}
