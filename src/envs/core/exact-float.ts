/** Exact conversions between doubles and rationals, for correctly rounded results as CPython / glibc produce them. */

/** Splits a positive finite double into an integer mantissa and a power-of-two exponent: value = mantissa · 2^exponent. */
export function binaryParts(value: number): [bigint, number] {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, value);
  const bits = view.getBigUint64(0) & ~(1n << 63n);
  const biasedExponent = Number(bits >> 52n);
  const fraction = bits & ((1n << 52n) - 1n);
  if (biasedExponent === 0) return [fraction, -1074];
  return [fraction | (1n << 52n), biasedExponent - 1075];
}

/** Number of bits of a non-negative BigInt. */
export function bitLength(value: bigint): number {
  return value === 0n ? 0 : value.toString(2).length;
}

/**
 * The double nearest to numerator / denominator · 2^exponent (ties to even), for numerator ≥ 0 and denominator > 0;
 * Infinity when it overflows. Subnormal results are rounded once, at their own precision.
 */
export function rationalToDouble(numerator: bigint, denominator: bigint, exponent = 0): number {
  if (numerator === 0n) return 0;
  // The value lies in [2^(top - 1), 2^(top + 1)).
  const top = bitLength(numerator) - bitLength(denominator) + exponent;
  if (top > 1025) return Infinity;
  if (top < -1080) return 0;
  if (top - 1 < -1022) {
    // Subnormal (or nearly): round directly to a multiple of 2^-1074.
    const shift = exponent + 1074;
    const scaledNumerator = shift >= 0 ? numerator << BigInt(shift) : numerator;
    const scaledDenominator = shift >= 0 ? denominator : denominator << BigInt(-shift);
    let units = scaledNumerator / scaledDenominator;
    const twiceRemainder = (scaledNumerator % scaledDenominator) * 2n;
    if (twiceRemainder > scaledDenominator || (twiceRemainder === scaledDenominator && units % 2n === 1n)) units += 1n;
    return Number(units) * 2 ** -1074;
  }
  // Round to odd with at least 56 significant bits, then let the BigInt → Number conversion round to nearest even.
  const shift = bitLength(denominator) - bitLength(numerator) + 56;
  const scaledNumerator = shift >= 0 ? numerator << BigInt(shift) : numerator;
  const scaledDenominator = shift >= 0 ? denominator : denominator << BigInt(-shift);
  const quotient = scaledNumerator / scaledDenominator;
  const sticky = scaledNumerator % scaledDenominator === 0n ? 0n : 1n;
  return scaleByPowerOfTwo(Number((quotient << 1n) | sticky), exponent - shift - 1);
}

/** value · 2^exponent, exact while the result is a normal double. */
function scaleByPowerOfTwo(value: number, exponent: number): number {
  let result = value;
  let remaining = exponent;
  while (remaining > 1000) {
    result *= 2 ** 1000;
    remaining -= 1000;
  }
  while (remaining < -1000) {
    result *= 2 ** -1000;
    remaining += 1000;
  }
  return result * 2 ** remaining;
}
