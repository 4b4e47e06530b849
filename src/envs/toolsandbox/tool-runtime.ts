/**
 * How ToolSandbox calls a tool: keyword arguments bound to the signature (Python's `TypeError` messages for unknown
 * or missing ones), defaults filled, `@typechecked` validation, the call, and the tool trace (`tool_name`, all
 * arguments including defaulted ones except `NOT_GIVEN`, `result`) recorded only for the outermost tool.
 */
import type { ToolInfo } from "./export-schema.js";
import { PyFloat, pythonTypeName, type PyValue } from "./python-literal.js";
import { NOT_GIVEN, PythonException } from "./python-values.js";
import type { SandboxWorld } from "./sandbox-world.js";

/** A bound argument: a Python value or `NOT_GIVEN`. */
export type ToolArgument = PyValue | typeof NOT_GIVEN;
export type ToolArguments = Record<string, ToolArgument>;

/** One tool's behaviour. `typechecked` marks ToolSandbox's `@typechecked` tools. */
export interface ToolImplementation {
  typechecked: boolean;
  run(world: SandboxWorld, args: ToolArguments, call: NestedCall): PyValue;
}

/** Calls another tool from inside a tool (untraced, as ToolSandbox disables tracing in a tool's scope). */
export type NestedCall = (name: string, args: ToolArguments) => PyValue;

const TYPE_REPR: Record<string, string> = { str: "<class 'str'>", bool: "<class 'bool'>", int: "<class 'int'>", float: "<class 'float'>" };

/** Python's repr of an annotation (`<class 'str'>`, `typing.Optional[float]`, `typing.Union[str, …NotGiven]`). */
export function annotationRepr(annotation: string): string {
  if (TYPE_REPR[annotation] !== undefined) return TYPE_REPR[annotation];
  return `typing.${annotation}`;
}

function allowedTypes(annotation: string): Set<string> {
  const optional = /^Optional\[(.*)\]$/.exec(annotation);
  if (optional !== null) return new Set([...allowedTypes(optional[1] as string), "NoneType"]);
  const union = /^Union\[(.*)\]$/.exec(annotation);
  if (union !== null) return new Set((union[1] as string).split(",").map((part) => part.trim()).map((part) => (part.endsWith("NotGiven") ? "NotGiven" : part)));
  return new Set([annotation]);
}

function typeNameOf(value: ToolArgument): string {
  return value === NOT_GIVEN ? "NotGiven" : pythonTypeName(value);
}

/** `validate_type(value, name, annotation)`. */
export function validateType(value: ToolArgument, name: string, annotation: string): void {
  const allowed = allowedTypes(annotation);
  const type = typeNameOf(value);
  if (allowed.has(type)) return;
  if ((type === "int" || type === "bool") && allowed.has("float")) return;
  if (type === "bool" && allowed.has("int")) return;
  const typeRepr = type === "NotGiven" ? "<class 'tool_sandbox.common.utils.NotGiven'>" : `<class '${type}'>`;
  throw new PythonException("TypeError", `Parameter '${name}' is of type '${typeRepr}', but expected '${annotationRepr(annotation)}'.`);
}

function quotedList(names: readonly string[]): string {
  const quoted = names.map((name) => `'${name}'`);
  if (quoted.length === 1) return quoted[0] as string;
  if (quoted.length === 2) return `${quoted[0]} and ${quoted[1]}`;
  return `${quoted.slice(0, -1).join(", ")}, and ${quoted.at(-1)}`;
}

/** Binds keyword arguments to the signature and fills defaults (`TypeError` as Python words it). */
export function bindArguments(info: ToolInfo, name: string, given: PyValue): ToolArguments {
  if (given === null || typeof given !== "object" || Array.isArray(given) || given instanceof PyFloat) {
    throw new PythonException("TypeError", `${name}() argument after ** must be a mapping, not ${pythonTypeName(given)}`);
  }
  const parameters = new Set(info.signature.map((parameter) => parameter.name));
  for (const key of Object.keys(given)) if (!parameters.has(key)) throw new PythonException("TypeError", `${name}() got an unexpected keyword argument '${key}'`);
  const missing = info.signature.filter((parameter) => isRequired(parameter.default) && !Object.hasOwn(given, parameter.name)).map((parameter) => parameter.name);
  if (missing.length > 0) throw new PythonException("TypeError", `${name}() missing ${missing.length} required positional argument${missing.length > 1 ? "s" : ""}: ${quotedList(missing)}`);
  const bound: ToolArguments = {};
  for (const parameter of info.signature) {
    if (Object.hasOwn(given, parameter.name)) bound[parameter.name] = given[parameter.name] as PyValue;
    else bound[parameter.name] = defaultValue(parameter.default);
  }
  return bound;
}

function isRequired(value: unknown): boolean {
  return value !== null && typeof value === "object" && (value as Record<string, unknown>).$required === true;
}

function defaultValue(value: unknown): ToolArgument {
  if (value !== null && typeof value === "object" && (value as Record<string, unknown>).$not_given === true) return NOT_GIVEN;
  return value as PyValue;
}

/** The trace's `arguments`: every bound argument except `NOT_GIVEN`. */
export function traceArguments(args: ToolArguments): Record<string, PyValue> {
  const out: Record<string, PyValue> = {};
  for (const [key, value] of Object.entries(args)) if (value !== NOT_GIVEN) out[key] = value;
  return out;
}

/** Reads an argument as a plain number (ints and floats; bools count as ints in Python). */
export function numberArgument(value: ToolArgument): number {
  if (typeof value === "number") return value;
  if (typeof value === "boolean") return Number(value);
  if (value instanceof PyFloat) return value.value;
  throw new PythonException("TypeError", `expected a number, got ${typeNameOf(value)}`);
}

/** Whether an argument was given (not `NOT_GIVEN`). */
export function isGiven(value: ToolArgument): value is PyValue {
  return value !== NOT_GIVEN;
}
