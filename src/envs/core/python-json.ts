/**
 * `json.dumps` as CPython writes it (default separators `", "` / `": "`, `ensure_ascii=True`, float repr), so that
 * tool observations are byte-identical to τ²-bench's. JavaScript numbers do not remember whether they were floats, so
 * the caller says which paths hold Python floats. Written by hand: no maintained library reproduces CPython's output.
 */

/** Decides whether the number at `path` is a Python float (printed `100.0`) rather than an int (`100`). */
export type FloatPathPredicate = (path: readonly string[]) => boolean;

const NO_FLOATS: FloatPathPredicate = () => false;

/** CPython's `repr(float)`: shortest round-trip digits, exponent outside [1e-4, 1e16), always a `.0` or exponent. */
export function pythonFloatRepr(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (value === Infinity) return "Infinity";
  if (value === -Infinity) return "-Infinity";
  if (value === 0) return Object.is(value, -0) ? "-0.0" : "0.0";
  const absolute = Math.abs(value);
  if (absolute >= 1e16 || absolute < 1e-4) {
    const [mantissa, exponent] = value.toExponential().split("e") as [string, string];
    const sign = exponent.startsWith("-") ? "-" : "+";
    const digits = exponent.replace(/^[+-]/, "").padStart(2, "0");
    return `${mantissa}e${sign}${digits}`;
  }
  const text = String(value);
  return text.includes(".") ? text : `${text}.0`;
}

/** Python's `str(float)`: the `repr` digits, with `inf`, `-inf` and `nan` as Python spells them (JSON says `Infinity`). */
export function pythonFloatString(value: number): string {
  if (Number.isNaN(value)) return "nan";
  if (value === Infinity) return "inf";
  if (value === -Infinity) return "-inf";
  return pythonFloatRepr(value);
}

function encodeString(text: string): string {
  let out = '"';
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    const char = text[index] as string;
    if (char === '"') out += '\\"';
    else if (char === "\\") out += "\\\\";
    else if (char === "\n") out += "\\n";
    else if (char === "\r") out += "\\r";
    else if (char === "\t") out += "\\t";
    else if (char === "\b") out += "\\b";
    else if (char === "\f") out += "\\f";
    else if (code < 0x20 || code > 0x7e) out += `\\u${code.toString(16).padStart(4, "0")}`;
    else out += char;
  }
  return out + '"';
}

function encode(value: unknown, path: string[], isFloat: FloatPathPredicate): string {
  if (value === null || value === undefined) return "null";
  if (value === true) return "true";
  if (value === false) return "false";
  if (typeof value === "number") {
    if (isFloat(path) || !Number.isInteger(value)) return pythonFloatRepr(value);
    return String(value);
  }
  if (typeof value === "string") return encodeString(value);
  if (Array.isArray(value)) {
    const parts = value.map((item, index) => encode(item, [...path, String(index)], isFloat));
    return `[${parts.join(", ")}]`;
  }
  if (typeof value === "object") {
    const parts = Object.entries(value as Record<string, unknown>).map(
      ([key, item]) => `${encodeString(key)}: ${encode(item, [...path, key], isFloat)}`,
    );
    return `{${parts.join(", ")}}`;
  }
  throw new TypeError(`cannot encode ${typeof value} as JSON`);
}

/** Serialises `value` exactly as CPython's `json.dumps(value)` would. */
export function pythonJsonDumps(value: unknown, isFloat: FloatPathPredicate = NO_FLOATS): string {
  return encode(value, [], isFloat);
}
