/**
 * τ²-bench's `calculate` tool (airline and retail): `str(round(float(eval(expression)), 2))` over digits,
 * `+ - * / ( ) .` and spaces, with Python semantics and CPython 3.11's error messages. Written by hand: evaluating
 * with JavaScript arithmetic would differ from Python (int vs float division, big integers, rounding, error text).
 */
import { ToolError } from "../../core/tool-error.js";
import type { ToolDefinition } from "../../core/tool-kit.js";
import { pythonFloatString } from "../../core/python-json.js";
import { evaluatePythonExpression, toPythonFloat } from "./python-expression-evaluator.js";
import { parsePythonExpression } from "./python-expression-parser.js";
import { pythonRound } from "../../core/python-round.js";

const ALLOWED = new Set("0123456789+-*/(). ");

/**
 * The result as Python prints the rounded float (`"4.0"`, `"0.33"`, `"1e+20"`, `"inf"`). Disallowed characters give
 * "Invalid characters in expression"; syntax and arithmetic errors give CPython 3.11's messages ("division by zero",
 * "float division by zero", "invalid syntax (<string>, line 1)", …).
 */
export function calculateExpression(expression: string): string {
  if (![...expression].every((char) => ALLOWED.has(char))) throw new ToolError("Invalid characters in expression");
  try {
    const value = toPythonFloat(evaluatePythonExpression(parsePythonExpression(expression)));
    return pythonFloatString(pythonRound(value, 2));
  } catch (error) {
    if (error instanceof Error && (error.name === "PythonSyntaxError" || error.name === "PythonRuntimeError")) {
      throw new ToolError(error.message, { cause: error });
    }
    throw error;
  }
}

/** The `calculate` tool over any state (it never reads or writes the database). */
export const calculateTool: ToolDefinition<unknown> = {
  name: "calculate",
  kind: "generic",
  description: "Calculate the result of a mathematical expression.",
  parameters: {
    properties: {
      expression: {
        description: "The mathematical expression to calculate, such as '2 + 2'. The expression can contain numbers, operators (+, -, *, /), parentheses, and spaces.",
        title: "Expression",
        type: "string",
      },
    },
    required: ["expression"],
    title: "parameters",
    type: "object",
  },
  run: (_state, args) => calculateExpression(args.expression as string),
};
