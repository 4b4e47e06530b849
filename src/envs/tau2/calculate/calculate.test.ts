/** `calculate` against CPython 3.11's `str(round(float(eval(expression)), 2))`: hand-picked cases and a fixture. */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { pythonRound } from "../../core/python-round.js";
import { ToolKit } from "../../core/tool-kit.js";
import { calculateExpression, calculateTool } from "./calculate.js";

const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../../src/envs/tau2/calculate/fixtures");

function outcome(expression: string): string {
  try {
    return calculateExpression(expression);
  } catch (error) {
    return `Error: ${(error as Error).message}`;
  }
}

test("prints the rounded float as Python's str does", () => {
  assert.equal(outcome("2 + 2"), "4.0");
  assert.equal(outcome("10 / 3"), "3.33");
  assert.equal(outcome("3 / 2"), "1.5");
  assert.equal(outcome("269.16 - 236.51"), "32.65");
  assert.equal(outcome("-7 // 2"), "-4.0");
  assert.equal(outcome("2 ** 0.5"), "1.41");
  assert.equal(outcome("10 ** 20"), "1e+20");
  assert.equal(outcome("0 * -1.0"), "-0.0");
  assert.equal(outcome("(2.0 ** 1023) * 2"), "inf");
});

test("reports Python's errors", () => {
  assert.equal(outcome("1 / 0"), "Error: division by zero");
  assert.equal(outcome("1.0 / 0"), "Error: float division by zero");
  assert.equal(outcome("1 // 0"), "Error: integer division or modulo by zero");
  assert.equal(outcome("2 ^ 3"), "Error: Invalid characters in expression");
  assert.equal(outcome("1 +"), "Error: invalid syntax (<string>, line 1)");
  assert.equal(outcome(""), "Error: invalid syntax (<string>, line 0)");
  assert.equal(outcome("(1 + 2"), "Error: '(' was never closed (<string>, line 1)");
  assert.equal(outcome("1 + 2)"), "Error: unmatched ')' (<string>, line 1)");
  assert.equal(outcome("(1 2 3)"), "Error: invalid syntax. Perhaps you forgot a comma? (<string>, line 1)");
  assert.equal(
    outcome("012"),
    "Error: leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers " +
      "(<string>, line 1)",
  );
  assert.equal(outcome("()"), "Error: float() argument must be a string or a real number, not 'tuple'");
  assert.equal(outcome("(1)(2)"), "Error: 'int' object is not callable");
  assert.equal(outcome("9 ** 999"), "Error: int too large to convert to float");
  assert.equal(outcome("10.0 ** 400"), "Error: (34, 'Numerical result out of range')");
});

test("agrees with CPython on every fixture expression", () => {
  const cases = JSON.parse(readFileSync(path.join(fixtures, "calculate-cases.json"), "utf8")) as [string, string][];
  assert.ok(cases.length > 1000);
  const mismatches = cases.filter(([expression, expected]) => outcome(expression) !== expected);
  assert.deepEqual(mismatches, []);
});

test("survives expressions nested thousands deep", () => {
  assert.equal(outcome(`${"-".repeat(2000)}1`), "1.0");
  assert.equal(outcome(`${"1+".repeat(2500)}1`), "2501.0");
  assert.equal(outcome(`${"-".repeat(10000)}1`), "Error: ");
  assert.equal(outcome(`${"1+".repeat(5000)}1`), "Error: maximum recursion depth exceeded during compilation");
  assert.equal(outcome(`${"(".repeat(201)}1${")".repeat(201)}`), "Error: too many nested parentheses (<string>, line 1)");
});

test("results are Python floats rounded to two decimals", () => {
  const cases: [string, string][] = [
    ["2 + 2", "4.0"],
    ["1/3", "0.33"],
    ["2/3", "0.67"],
    ["4/2", "2.0"],
    ["(1/3)*100", "33.33"],
    ["77 + 94 + 89 + 65 + 58 + 94 + 154 + 1398 + 1798 + 579 + 1560", "5966.0"],
    ["0.1+0.2", "0.3"],
    ["2.675", "2.67"],
    ["0.125", "0.12"],
    ["0.015", "0.01"],
    ["0.025", "0.03"],
    ["99.995", "100.0"],
    ["-2.675", "-2.67"],
    ["-0.001", "-0.0"],
    ["7 // -2", "-4.0"],
    ["-7.5 // 2", "-4.0"],
    ["1 // 2.5", "0.0"],
    ["2**-1", "0.5"],
    ["-2**2", "-4.0"],
    ["2**3**2", "512.0"],
    ["2**0.5", "1.41"],
    ["--1", "1.0"],
    ["00", "0.0"],
    [" 1", "1.0"],
    ["1.", "1.0"],
    [".5", "0.5"],
    ["0/-1", "-0.0"],
    ["10**16/1", "1e+16"],
    ["2**53+1", "9007199254740992.0"],
    ["10**22/3", "3.3333333333333335e+21"],
    ["12345678901234567890123/7", "1.763668414462081e+21"],
    ["12345678901234567890123*1", "1.2345678901234568e+22"],
    ["1/12345678901234567890123", "0.0"],
    ["554.317-938.537 ** 10", "-5.302906687374147e+29"],
    ["10**308*10.0", "inf"],
  ];
  for (const [expression, expected] of cases) assert.equal(outcome(expression), expected, expression);
});

test("Python's runtime errors come through with CPython's wording", () => {
  const cases: [string, string][] = [
    ["abc", "Error: Invalid characters in expression"],
    ["2 % 3", "Error: Invalid characters in expression"],
    ["1/0", "Error: division by zero"],
    ["1.0/0", "Error: float division by zero"],
    ["1//0", "Error: integer division or modulo by zero"],
    ["1.0//0", "Error: float floor division by zero"],
    ["0**-1", "Error: 0.0 cannot be raised to a negative power"],
    ["2.0**10000", "Error: (34, 'Numerical result out of range')"],
    ["10**400*1.0", "Error: int too large to convert to float"],
    ["2**10000", "Error: int too large to convert to float"],
    ["(-8)**(1/3)", "Error: float() argument must be a string or a real number, not 'complex'"],
    ["(-8)**(1/3)*0/0", "Error: complex division by zero"],
    ["2(3)", "Error: 'int' object is not callable"],
    ["1.5(2)", "Error: 'float' object is not callable"],
    ["2(**())", "Error: 2 argument after ** must be a mapping, not tuple"],
    ["()", "Error: float() argument must be a string or a real number, not 'tuple'"],
    ["...", "Error: float() argument must be a string or a real number, not 'ellipsis'"],
    ["() + 1", 'Error: can only concatenate tuple (not "int") to tuple'],
    ["1 + ()", "Error: unsupported operand type(s) for +: 'int' and 'tuple'"],
    ["()*2.0", "Error: can't multiply sequence by non-int of type 'float'"],
    ["-()", "Error: bad operand type for unary -: 'tuple'"],
  ];
  for (const [expression, expected] of cases) assert.equal(outcome(expression), expected, expression);
});

test("syntax errors follow CPython's two-pass parser", () => {
  const cases: [string, string][] = [
    ["", "Error: invalid syntax (<string>, line 0)"],
    ["   ", "Error: invalid syntax (<string>, line 0)"],
    ["1 +", "Error: invalid syntax (<string>, line 1)"],
    ["1 2", "Error: invalid syntax (<string>, line 1)"],
    ["(1 2)", "Error: invalid syntax. Perhaps you forgot a comma? (<string>, line 1)"],
    ["(1 2", "Error: '(' was never closed (<string>, line 1)"],
    ["1 + (2", "Error: '(' was never closed (<string>, line 1)"],
    [")", "Error: unmatched ')' (<string>, line 1)"],
    ["(1 2) )", "Error: unmatched ')' (<string>, line 1)"],
    [
      "01",
      "Error: leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers " +
        "(<string>, line 1)",
    ],
    ["1..2", "Error: invalid syntax (<string>, line 1)"],
    ["(* 1)", "Error: cannot use starred expression here (<string>, line 1)"],
    ["(**1)", "Error: cannot use double starred expression here (<string>, line 1)"],
  ];
  for (const [expression, expected] of cases) assert.equal(outcome(expression), expected, expression);
  assert.equal(
    outcome("1".repeat(4301)),
    "Error: Exceeds the limit (4300 digits) for integer string conversion: value has 4301 digits; use " +
      "sys.set_int_max_str_digits() to increase the limit - Consider hexadecimal for huge integer literals to avoid " +
      "decimal conversion limits. (<string>, line 1)",
  );
  assert.equal(outcome("1".repeat(4300) + ".5"), "inf");
});

test("deeply nested parentheses parse quickly, up to the tokenizer's limit of 200", () => {
  assert.equal(outcome(`${"(".repeat(199)}1${")".repeat(199)}`), "1.0");
  const tooDeep = `${"(".repeat(201)}1${")".repeat(201)}`;
  assert.equal(outcome(tooDeep), "Error: too many nested parentheses (<string>, line 1)");
});

test("operators nested thousands deep fail to compile, at τ²-bench's depth", () => {
  // CPython's limit depends on the stack depth at the eval() call; inside τ²-bench's tool call it is about 2,900.
  assert.equal(outcome(`${"-".repeat(2800)}1`), "1.0");
  assert.equal(outcome(Array(100000).fill("1").join("+")), "Error: maximum recursion depth exceeded during compilation");
});

test("round-half-even on the exact binary value", () => {
  assert.equal(pythonRound(2.675, 2), 2.67);
  assert.equal(pythonRound(0.375, 2), 0.38);
  assert.equal(pythonRound(1e300, 2), 1e300);
});

test("the tool answers with a plain string and reports errors as observations", () => {
  const kit = new ToolKit<unknown>("AirlineTools", [calculateTool]);
  assert.deepEqual(kit.execute(null, "calculate", { expression: "1042 - 827" }), { content: "215.0", error: false });
  assert.deepEqual(kit.execute(null, "calculate", { expression: "1/0" }), { content: "Error: division by zero", error: true });
});
