/** JSON values and structural equality with Python semantics (dict order ignored, 1 == 1.0). */

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** Structural equality of JSON values as Python's `==` on parsed JSON: key order is ignored, list order is not. */
export function jsonEquals(left: unknown, right: unknown): boolean {
  if (left === right) return true;
  if (left === null || right === null || typeof left !== "object" || typeof right !== "object") return false;
  if (Array.isArray(left)) {
    if (!Array.isArray(right) || left.length !== right.length) return false;
    for (let index = 0; index < left.length; index++) {
      if (!jsonEquals(left[index], right[index])) return false;
    }
    return true;
  }
  if (Array.isArray(right)) return false;
  const leftRecord = left as Record<string, unknown>;
  const rightRecord = right as Record<string, unknown>;
  const leftKeys = Object.keys(leftRecord);
  if (leftKeys.length !== Object.keys(rightRecord).length) return false;
  for (const key of leftKeys) {
    if (!Object.hasOwn(rightRecord, key) || !jsonEquals(leftRecord[key], rightRecord[key])) return false;
  }
  return true;
}

/** Recursively freezes a parsed JSON value so that accidental in-place writes throw. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

/** A deep, mutable copy of a JSON value. */
export function cloneJson<T>(value: T): T {
  return structuredClone(value);
}
