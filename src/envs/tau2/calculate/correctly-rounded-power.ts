/**
 * x ** y for a positive finite x and finite y, correctly rounded (as glibc's `pow`, which CPython calls, is in all
 * but vanishingly rare cases). `Math.pow` is not: it differs in the last bit for about one input in ten. Computed
 * as exp(y · log x) in double-double arithmetic (about 100 bits), then rounded once.
 */
import { binaryParts, rationalToDouble } from "../../core/exact-float.js";

/** A double-double: the unevaluated sum high + low with |low| ≤ ulp(high) / 2. */
type DoubleDouble = readonly [number, number];

const SPLITTER = 134217729; // 2^27 + 1
const LN2: DoubleDouble = [0.6931471805599453, 2.3190468138462996e-17];

function twoSum(left: number, right: number): DoubleDouble {
  const sum = left + right;
  const virtualRight = sum - left;
  return [sum, left - (sum - virtualRight) + (right - virtualRight)];
}

function quickTwoSum(high: number, low: number): DoubleDouble {
  const sum = high + low;
  return [sum, low - (sum - high)];
}

function split(value: number): DoubleDouble {
  const scaled = SPLITTER * value;
  const high = scaled - (scaled - value);
  return [high, value - high];
}

function twoProduct(left: number, right: number): DoubleDouble {
  const product = left * right;
  const [leftHigh, leftLow] = split(left);
  const [rightHigh, rightLow] = split(right);
  return [product, leftHigh * rightHigh - product + leftHigh * rightLow + leftLow * rightHigh + leftLow * rightLow];
}

function add(left: DoubleDouble, right: DoubleDouble): DoubleDouble {
  const [sum, error] = twoSum(left[0], right[0]);
  const [lowSum, lowError] = twoSum(left[1], right[1]);
  const [high, low] = quickTwoSum(sum, error + lowSum);
  return quickTwoSum(high, low + lowError);
}

function multiply(left: DoubleDouble, right: DoubleDouble): DoubleDouble {
  const [product, error] = twoProduct(left[0], right[0]);
  return quickTwoSum(product, error + (left[0] * right[1] + left[1] * right[0]));
}

function divide(numerator: DoubleDouble, denominator: DoubleDouble): DoubleDouble {
  const first = numerator[0] / denominator[0];
  const remainder = add(numerator, multiply(denominator, [-first, 0]));
  const second = remainder[0] / denominator[0];
  const remainder2 = add(remainder, multiply(denominator, [-second, 0]));
  const third = remainder2[0] / denominator[0];
  return add(quickTwoSum(first, second), [third, 0]);
}

/** log(x) for a positive finite double, via log(m) = 2 atanh((m - 1) / (m + 1)) with m in [√½, √2). */
function logarithm(value: number): DoubleDouble {
  const [mantissa, binaryExponent] = binaryParts(value);
  const bits = mantissa.toString(2).length;
  let exponent = binaryExponent + bits - 1;
  let scaled = Number(mantissa) / 2 ** (bits - 1); // exact, in [1, 2)
  if (scaled > Math.SQRT2) {
    scaled /= 2;
    exponent += 1;
  }
  const ratio = divide([scaled - 1, 0], twoSum(scaled, 1));
  const square = multiply(ratio, ratio);
  let series: DoubleDouble = divide([1, 0], [47, 0]);
  for (let odd = 45; odd >= 1; odd -= 2) series = add(multiply(series, square), divide([1, 0], [odd, 0]));
  const logMantissa = multiply(multiply(ratio, series), [2, 0]);
  return add(multiply(LN2, [exponent, 0]), logMantissa);
}

/** exp(value) as a double-double scaled by 2^power, so that the caller rounds once. */
function exponential(value: DoubleDouble): { mantissa: DoubleDouble; power: number } {
  const power = Math.round(value[0] / LN2[0]);
  const reduced = add(value, multiply(LN2, [-power, 0])); // |reduced| ≤ ~0.35
  const small: DoubleDouble = [reduced[0] / 256, reduced[1] / 256];
  // expm1(small) by Taylor series, then (1 + e)^2 - 1 = e (2 + e), eight times.
  let term: DoubleDouble = small;
  let sum: DoubleDouble = small;
  for (let index = 2; index <= 14; index++) {
    term = divide(multiply(term, small), [index, 0]);
    sum = add(sum, term);
  }
  for (let index = 0; index < 8; index++) sum = multiply(sum, add([2, 0], sum));
  return { mantissa: add([1, 0], sum), power };
}

/** Correctly rounded base ** exponent for base > 0 finite and exponent finite; may return Infinity or 0. */
export function correctlyRoundedPower(base: number, exponent: number): number {
  const product = multiply(logarithm(base), [exponent, 0]);
  if (product[0] > 710) return Infinity;
  if (product[0] < -746) return 0;
  const { mantissa, power } = exponential(product);
  const [high, low] = quickTwoSum(mantissa[0], mantissa[1]);
  const result = high * 2 ** power;
  if (Math.abs(result) >= 2 ** -1022 || result === 0) {
    // 2^power can itself under/overflow for extreme powers; scale in two steps.
    const half = Math.trunc(power / 2);
    return high * 2 ** half * 2 ** (power - half);
  }
  // Subnormal: round the exact sum high + low, scaled, once.
  return subnormal(high, low, power);
}

function subnormal(high: number, low: number, power: number): number {
  const [highMantissa, highExponent] = binaryParts(Math.abs(high));
  if (low === 0) return rationalToDouble(highMantissa, 1n, highExponent + power);
  const [lowMantissa, lowExponent] = binaryParts(Math.abs(low));
  const lowSigned = Math.sign(low) === Math.sign(high) ? lowMantissa : -lowMantissa;
  const shift = highExponent - lowExponent;
  const numerator = (highMantissa << BigInt(shift)) + lowSigned;
  return rationalToDouble(numerator, 1n, lowExponent + power);
}
