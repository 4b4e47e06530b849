/**
 * Tools over a state: definitions with JSON-Schema parameters, and execution that turns every failure (unknown tool,
 * arguments that are not JSON, missing / unexpected / mistyped arguments, a refusal by the tool) into an error
 * observation instead of a crash, with τ²-bench's wording where τ²-bench has one.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import type { ToolResult } from "../../spec/environment.js";
import type { JsonSchema, ToolKind, ToolSpec } from "../../spec/tool-spec.js";
import { pythonJsonDumps, type FloatPathPredicate } from "./python-json.js";
import { ToolError } from "./tool-error.js";

/** One tool: its OpenAI spec, what it does to state, and its implementation. */
export interface ToolDefinition<State> {
  name: string;
  kind: ToolKind;
  description: string;
  /** JSON Schema of the arguments object (`properties`, `required`, `$defs`). */
  parameters: JsonSchema;
  /**
   * Runs the tool on already validated arguments. Returns a string (sent as is) or a JSON value shaped as τ²-bench
   * dumps it. Throws `ToolError` to refuse.
   */
  run(state: State, args: Record<string, unknown>): unknown;
}

/** A named set of tools that share a state type. */
export class ToolKit<State> {
  private readonly byName = new Map<string, ToolDefinition<State>>();
  private readonly validators = new Map<string, ValidateFunction>();

  /**
   * @param className Name used in Python-style argument errors (`AirlineTools.get_user_details() missing …`).
   * @param isFloat Which result paths hold Python floats, for byte-identical observations.
   */
  constructor(
    readonly className: string,
    tools: readonly ToolDefinition<State>[],
    private readonly isFloat: FloatPathPredicate = () => false,
  ) {
    const ajv = new Ajv({ coerceTypes: true, allErrors: true, strict: false });
    for (const tool of tools) {
      if (this.byName.has(tool.name)) throw new Error(`duplicate tool name ${tool.name}`);
      this.byName.set(tool.name, tool);
      this.validators.set(tool.name, ajv.compile(topLevelSchema(tool.parameters)));
    }
  }

  get names(): string[] {
    return [...this.byName.keys()];
  }

  tool(name: string): ToolDefinition<State> | undefined {
    return this.byName.get(name);
  }

  kind(name: string): ToolKind | undefined {
    return this.byName.get(name)?.kind;
  }

  /** OpenAI `tools` entries, in definition order. */
  specs(): ToolSpec[] {
    return [...this.byName.values()].map((tool) => ({
      type: "function",
      function: { name: tool.name, description: tool.description, parameters: tool.parameters },
    }));
  }

  /** Serialises a tool's return value as τ²-bench does (`Environment.to_json_str`). */
  serialize(value: unknown): string {
    if (typeof value === "string") return value;
    if (typeof value === "boolean") return value ? "True" : "False";
    if (typeof value === "number") return String(value);
    return pythonJsonDumps(value ?? null, this.isFloat);
  }

  /** Executes a call whose arguments are raw JSON text (as models produce) or an already parsed object. */
  execute(state: State, name: string, rawArguments: string | Record<string, unknown>): ToolResult {
    try {
      return { content: this.serialize(this.call(state, name, rawArguments)), error: false };
    } catch (error) {
      return { content: `Error: ${errorMessage(error)}`, error: true };
    }
  }

  /** Executes a call and returns the raw value; throws `ToolError` on any failure. */
  call(state: State, name: string, rawArguments: string | Record<string, unknown>): unknown {
    const tool = this.byName.get(name);
    if (tool === undefined) throw new ToolError(`Tool '${name}' not found.`, { toolName: name });
    const args = this.checkArguments(tool, rawArguments);
    return tool.run(state, args);
  }

  private checkArguments(tool: ToolDefinition<State>, rawArguments: string | Record<string, unknown>) {
    let parsed: unknown = rawArguments;
    if (typeof rawArguments === "string") {
      try {
        parsed = rawArguments.trim() === "" ? {} : JSON.parse(rawArguments);
      } catch (error) {
        throw new ToolError(`Tool arguments for ${tool.name} are not valid JSON: ${errorMessage(error)}`, {
          toolName: tool.name,
        });
      }
    }
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
      throw new ToolError(`Tool arguments for ${tool.name} must be a JSON object, got ${JSON.stringify(parsed)}`, {
        toolName: tool.name,
      });
    }
    const args = structuredClone(parsed) as Record<string, unknown>;
    const properties = (tool.parameters.properties ?? {}) as Record<string, unknown>;
    const signature = `${this.className}.${tool.name}()`;
    const unexpected = Object.keys(args).find((key) => !Object.hasOwn(properties, key));
    if (unexpected !== undefined) {
      throw new ToolError(`${signature} got an unexpected keyword argument '${unexpected}'`, { toolName: tool.name });
    }
    const required = (tool.parameters.required ?? []) as string[];
    const missing = required.filter((key) => !Object.hasOwn(args, key));
    if (missing.length > 0) {
      const quoted = missing.map((key) => `'${key}'`);
      const list = quoted.length === 1 ? quoted[0] : `${quoted.slice(0, -1).join(", ")} and ${quoted.at(-1)}`;
      const noun = missing.length === 1 ? "argument" : "arguments";
      throw new ToolError(`${signature} missing ${missing.length} required positional ${noun}: ${list}`, {
        toolName: tool.name,
      });
    }
    const validate = this.validators.get(tool.name) as ValidateFunction;
    if (!validate(args)) {
      throw new ToolError(formatValidationErrors(tool.name, validate.errors ?? []), { toolName: tool.name });
    }
    return args;
  }
}

const SCALAR_TYPES = new Set(["string", "integer", "number", "boolean", "null"]);

/**
 * The part of a parameters schema that is checked before a tool runs: each argument's top-level type (scalars with
 * pydantic-like lax coercion, e.g. "5" → 5), while the contents of lists and objects reach the tool untouched,
 * because τ²-bench's tools build and validate those themselves (pydantic models, with their own error messages).
 */
function topLevelSchema(parameters: JsonSchema): JsonSchema {
  const properties = (parameters.properties ?? {}) as Record<string, JsonSchema>;
  const shallow: Record<string, JsonSchema> = {};
  for (const [name, schema] of Object.entries(properties)) {
    const type = schema.type;
    if (type === "array" || type === "object") shallow[name] = { type };
    else if (typeof type === "string" && SCALAR_TYPES.has(type)) {
      shallow[name] = Object.fromEntries(Object.entries(schema).filter(([key]) => key === "type"));
    } else shallow[name] = {};
  }
  return { type: "object", properties: shallow };
}

function formatValidationErrors(toolName: string, errors: ErrorObject[]): string {
  const lines = errors.map((error) => {
    const where = error.instancePath === "" ? "(arguments)" : error.instancePath.slice(1).replaceAll("/", ".");
    return `${where}\n  ${error.message ?? "is invalid"}`;
  });
  const count = errors.length;
  return `${count} validation error${count === 1 ? "" : "s"} for ${toolName}\n${lines.join("\n")}`;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
