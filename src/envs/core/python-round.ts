/** Python's `round(x, ndigits)` on floats: correctly rounded from the exact binary value, ties to even. */
import { binaryParts } from "./exact-float.js";

/**
 * `round(value, digits)` for a Python float and `digits >= 0`. Like CPython, the exact binary value is rounded to
 * `digits` decimals (ties to even) and the decimal result is read back as the nearest double.
 */
export function pythonRound(value: number, digits = 2): number {
  if (!Number.isFinite(value) || value === 0) return value;
  const [mantissa, exponent] = binaryParts(Math.abs(value));
  // |value| · 10^digits = mantissa · 5^digits · 2^(exponent + digits), rounded to an integer, ties to even.
  const scaled = mantissa * 5n ** BigInt(digits);
  const shift = exponent + digits;
  let units: bigint;
  if (shift >= 0) {
    units = scaled << BigInt(shift);
  } else {
    const denominator = 1n << BigInt(-shift);
    units = scaled / denominator;
    const twiceRemainder = (scaled % denominator) * 2n;
    if (twiceRemainder > denominator || (twiceRemainder === denominator && units % 2n === 1n)) units += 1n;
  }
  const rounded = Number(`${units}e-${digits}`);
  return value < 0 ? -rounded : rounded;
}
