/**
 * Evaluates a parsed `calculate` expression with CPython 3.11 semantics: arbitrary-precision ints, IEEE floats, true
 * division `/`, floor division `//`, `**` (negative bases with fractional exponents give complex numbers), and the
 * odd values the grammar allows (`()`, `...`, calls), raising the same exceptions with the same messages.
 * Complex numbers are tracked by type only: no value of one is ever printed, as `float()` rejects them.
 */
import { pythonFloatString } from "../../core/python-json.js";
import { correctlyRoundedPower } from "./correctly-rounded-power.js";
import { binaryParts, bitLength, rationalToDouble } from "../../core/exact-float.js";
import { PythonRuntimeError } from "./python-errors.js";
import type { PythonArgument, PythonExpression } from "./python-expression-parser.js";

/** A Python value an expression can produce. */
export type PythonValue =
  | { type: "int"; value: bigint }
  | { type: "float"; value: number }
  | { type: "complex" }
  | { type: "tuple" }
  | { type: "ellipsis" };

const TWO_TO_53 = 2n ** 53n;
/** Results of `int ** int` above this many bits are not computed (CPython would exhaust memory or time). */
const MAXIMUM_POWER_BITS = 64_000_000;

const int = (value: bigint): PythonValue => ({ type: "int", value });
const float = (value: number): PythonValue => ({ type: "float", value });
const COMPLEX: PythonValue = { type: "complex" };

/**
 * Evaluates `expression` as `eval(expression, {"__builtins__": None}, {})` would: operands left to right, then the
 * operation. Iterative, since trees can be thousands of levels deep.
 */
export function evaluatePythonExpression(expression: PythonExpression): PythonValue {
  const values: PythonValue[] = [];
  const work: ({ visit: PythonExpression } | { apply: PythonExpression })[] = [{ visit: expression }];
  for (let step = work.pop(); step !== undefined; step = work.pop()) {
    if ("visit" in step) {
      const node = step.visit;
      work.push({ apply: node });
      if (node.kind === "unary") work.push({ visit: node.operand });
      if (node.kind === "binary") work.push({ visit: node.right }, { visit: node.left });
      if (node.kind === "call") work.push({ visit: node.callee });
      continue;
    }
    values.push(apply(step.apply, values));
  }
  return values.pop() as PythonValue;
}

/** Computes one node from its operands, which are on top of `values` (popped here). */
function apply(node: PythonExpression, values: PythonValue[]): PythonValue {
  switch (node.kind) {
    case "number":
      return /^\d+$/.test(node.text) ? int(BigInt(node.text)) : float(Number(node.text));
    case "ellipsis":
      return { type: "ellipsis" };
    case "empty-tuple":
      return { type: "tuple" };
    case "unary":
      return unary(node.operator, values.pop() as PythonValue);
    case "binary": {
      const right = values.pop() as PythonValue;
      const left = values.pop() as PythonValue;
      return binary(node.operator, left, right);
    }
    case "call":
      return call(values.pop() as PythonValue, node.argument);
  }
}

/** Python's `float(value)`. */
export function toPythonFloat(value: PythonValue): number {
  if (value.type === "float") return value.value;
  if (value.type === "int") return intToFloat(value.value);
  throw new PythonRuntimeError(
    "TypeError",
    `float() argument must be a string or a real number, not '${typeName(value)}'`,
  );
}

function typeName(value: PythonValue): string {
  return value.type;
}

/** `str(value)`, for the values whose text CPython puts in call errors. */
function pythonString(value: PythonValue): string {
  switch (value.type) {
    case "int":
      return value.value.toString();
    case "float":
      return pythonFloatString(value.value);
    case "tuple":
      return "()";
    case "ellipsis":
      return "Ellipsis";
    case "complex":
      return "(complex)";
  }
}


function intToFloat(value: bigint): number {
  const result = Number(value);
  if (!Number.isFinite(result)) throw new PythonRuntimeError("OverflowError", "int too large to convert to float");
  return result;
}

function isNumber(value: PythonValue): value is Extract<PythonValue, { type: "int" | "float" }> {
  return value.type === "int" || value.type === "float";
}

function unary(operator: "+" | "-", operand: PythonValue): PythonValue {
  switch (operand.type) {
    case "int":
      return operator === "-" ? int(-operand.value) : operand;
    case "float":
      return operator === "-" ? float(-operand.value) : operand;
    case "complex":
      return COMPLEX;
    default:
      throw new PythonRuntimeError("TypeError", `bad operand type for unary ${operator}: '${typeName(operand)}'`);
  }
}

function unsupported(operator: string, left: PythonValue, right: PythonValue): PythonRuntimeError {
  const shown = operator === "**" ? "** or pow()" : operator;
  return new PythonRuntimeError(
    "TypeError",
    `unsupported operand type(s) for ${shown}: '${typeName(left)}' and '${typeName(right)}'`,
  );
}

function binary(operator: "+" | "-" | "*" | "/" | "//" | "**", left: PythonValue, right: PythonValue): PythonValue {
  if (left.type === "tuple" || right.type === "tuple") return tupleOperation(operator, left, right);
  const numeric = (value: PythonValue) => isNumber(value) || value.type === "complex";
  if (!numeric(left) || !numeric(right)) throw unsupported(operator, left, right);
  if (left.type === "complex" || right.type === "complex") return complexOperation(operator, left, right);
  if (left.type === "int" && right.type === "int") return intOperation(operator, left.value, right.value);
  return floatOperation(operator, toPythonFloat(left), toPythonFloat(right));
}

/** `()` supports `+ ()`, `* int` and `int *`; anything else raises as CPython's sequence protocol does. */
function tupleOperation(operator: string, left: PythonValue, right: PythonValue): PythonValue {
  if (operator === "+") {
    if (left.type === "tuple" && right.type === "tuple") return left;
    if (left.type === "tuple") {
      throw new PythonRuntimeError("TypeError", `can only concatenate tuple (not "${typeName(right)}") to tuple`);
    }
    throw unsupported(operator, left, right);
  }
  if (operator === "*") {
    const count = left.type === "tuple" ? right : left;
    if (count.type === "int") {
      if (count.value >= 2n ** 63n || count.value < -(2n ** 63n)) {
        throw new PythonRuntimeError("OverflowError", "cannot fit 'int' into an index-sized integer");
      }
      return { type: "tuple" };
    }
    throw new PythonRuntimeError("TypeError", `can't multiply sequence by non-int of type '${typeName(count)}'`);
  }
  throw unsupported(operator, left, right);
}

/** Complex arithmetic, by type: only the errors that do not depend on the complex value are reproduced. */
function complexOperation(operator: string, left: PythonValue, right: PythonValue): PythonValue {
  // Mixing an int into complex arithmetic converts it to float first.
  if (left.type === "int") intToFloat(left.value);
  if (right.type === "int") intToFloat(right.value);
  if (operator === "//") throw unsupported(operator, left, right);
  if (operator === "/" && isZero(right)) throw new PythonRuntimeError("ZeroDivisionError", "complex division by zero");
  if (operator === "**" && isZero(left)) {
    throw new PythonRuntimeError("ZeroDivisionError", "0.0 to a negative or complex power");
  }
  return COMPLEX;
}

function isZero(value: PythonValue): boolean {
  return (value.type === "int" && value.value === 0n) || (value.type === "float" && value.value === 0);
}

function intOperation(operator: string, left: bigint, right: bigint): PythonValue {
  switch (operator) {
    case "+":
      return int(left + right);
    case "-":
      return int(left - right);
    case "*":
      return int(left * right);
    case "/":
      return float(intTrueDivide(left, right));
    case "//":
      if (right === 0n) throw new PythonRuntimeError("ZeroDivisionError", "integer division or modulo by zero");
      return int(floorDivide(left, right));
    default:
      if (right < 0n) return floatPower(intToFloat(left), intToFloat(right));
      return int(intPower(left, right));
  }
}

function floorDivide(left: bigint, right: bigint): bigint {
  const quotient = left / right;
  return left % right !== 0n && left < 0n !== right < 0n ? quotient - 1n : quotient;
}

function intPower(base: bigint, exponent: bigint): bigint {
  if (base === 0n) return exponent === 0n ? 1n : 0n;
  if (base === 1n) return 1n;
  if (base === -1n) return exponent % 2n === 0n ? 1n : -1n;
  const bits = BigInt(bitLength(base < 0n ? -base : base));
  if (exponent * bits > BigInt(MAXIMUM_POWER_BITS)) {
    throw new PythonRuntimeError("OverflowError", "int too large to convert to float");
  }
  return base ** exponent;
}

/** CPython's `long_true_divide`: the correctly rounded quotient of two ints. */
function intTrueDivide(left: bigint, right: bigint): number {
  if (right === 0n) throw new PythonRuntimeError("ZeroDivisionError", "division by zero");
  const negative = left < 0n !== right < 0n;
  const numerator = left < 0n ? -left : left;
  const denominator = right < 0n ? -right : right;
  if (numerator <= TWO_TO_53 && denominator <= TWO_TO_53) return Number(left) / Number(right);
  const magnitude = rationalToDouble(numerator, denominator);
  if (!Number.isFinite(magnitude)) {
    throw new PythonRuntimeError("OverflowError", "integer division result too large for a float");
  }
  return negative ? -magnitude : magnitude;
}

function floatOperation(operator: string, left: number, right: number): PythonValue {
  switch (operator) {
    case "+":
      return float(left + right);
    case "-":
      return float(left - right);
    case "*":
      return float(left * right);
    case "/":
      if (right === 0) throw new PythonRuntimeError("ZeroDivisionError", "float division by zero");
      return float(left / right);
    case "//":
      return float(floatFloorDivide(left, right));
    default:
      return floatPower(left, right);
  }
}

/** CPython's `float_floor_div` (via `_float_div_mod`). */
function floatFloorDivide(left: number, right: number): number {
  if (right === 0) throw new PythonRuntimeError("ZeroDivisionError", "float floor division by zero");
  let modulo = left % right;
  let division = (left - modulo) / right;
  if (modulo !== 0) {
    if (right < 0 !== modulo < 0) {
      modulo += right;
      division -= 1;
    }
  }
  if (division === 0) {
    const quotient = left / right;
    return quotient < 0 || Object.is(quotient, -0) ? -0 : 0;
  }
  let floored = Math.floor(division);
  if (division - floored > 0.5) floored += 1;
  return floored;
}

/** CPython's `float_pow`, including its special cases and its OverflowError on a finite base overflowing. */
function floatPower(base: number, exponent: number): PythonValue {
  if (exponent === 0) return float(1);
  if (Number.isNaN(base)) return float(base);
  if (Number.isNaN(exponent)) return float(base === 1 ? 1 : exponent);
  if (!Number.isFinite(exponent)) {
    const magnitude = Math.abs(base);
    if (magnitude === 1) return float(1);
    return float(exponent > 0 === magnitude > 1 ? Math.abs(exponent) : 0);
  }
  const exponentIsOdd = Number.isInteger(exponent) && Math.abs(exponent % 2) === 1;
  if (!Number.isFinite(base)) {
    if (exponent > 0) return float(exponentIsOdd ? base : Math.abs(base));
    return float(exponentIsOdd ? (base < 0 ? -0 : 0) : 0);
  }
  if (base === 0) {
    if (exponent < 0) throw new PythonRuntimeError("ZeroDivisionError", "0.0 cannot be raised to a negative power");
    return float(exponentIsOdd ? base : 0);
  }
  let magnitude = base;
  let negate = false;
  if (base < 0) {
    if (!Number.isInteger(exponent)) {
      if (!Number.isFinite(Math.pow(-base, exponent))) {
        throw new PythonRuntimeError("OverflowError", "complex exponentiation");
      }
      return COMPLEX;
    }
    magnitude = -base;
    negate = exponentIsOdd;
  }
  if (magnitude === 1) return float(negate ? -1 : 1);
  const result = Number.isInteger(exponent)
    ? integerPower(magnitude, exponent)
    : correctlyRoundedPower(magnitude, exponent);
  if (!Number.isFinite(result)) {
    throw new PythonRuntimeError("OverflowError", "(34, 'Numerical result out of range')");
  }
  return float(negate ? -result : result);
}

/** Exponents up to this size are raised exactly, like glibc's correctly rounded `pow`. */
const MAXIMUM_EXACT_EXPONENT = 4096;

/**
 * base^exponent for a positive finite base and an integer exponent, correctly rounded from the exact value
 * (`Math.pow` may be off by an ulp, e.g. 3.0 ** 35). Falls back to `Math.pow` for huge exponents.
 */
function integerPower(base: number, exponent: number): number {
  if (Math.abs(exponent) > MAXIMUM_EXACT_EXPONENT) return Math.pow(base, exponent);
  const [mantissa, binaryExponent] = binaryParts(base);
  const power = BigInt(Math.abs(exponent));
  const scale = binaryExponent * exponent;
  if (exponent > 0) return rationalToDouble(mantissa ** power, 1n, scale);
  return rationalToDouble(1n, mantissa ** power, scale);
}

/** A call: the callee and argument are evaluated, `*` / `**` unpacking is checked, then nothing is callable. */
function call(callee: PythonValue, argument: PythonArgument | undefined): PythonValue {
  if (argument !== undefined) {
    const value = evaluatePythonExpression(argument.value);
    if (argument.kind === "star" && value.type !== "tuple") {
      throw new PythonRuntimeError(
        "TypeError",
        `${pythonString(callee)} argument after * must be an iterable, not ${typeName(value)}`,
      );
    }
    if (argument.kind === "double-star") {
      throw new PythonRuntimeError(
        "TypeError",
        `${pythonString(callee)} argument after ** must be a mapping, not ${typeName(value)}`,
      );
    }
  }
  throw new PythonRuntimeError("TypeError", `'${typeName(callee)}' object is not callable`);
}
