/** Tool specifications as JSON Schema, in the OpenAI `tools` shape. */

/** A JSON Schema object (draft 2020-12 subset as produced by pydantic / OpenAI tool definitions). */
export type JsonSchema = Record<string, unknown>;

export interface ToolSpec {
  type: "function";
  function: {
    name: string;
    description: string;
    parameters: JsonSchema;
  };
}

/** What a tool does to the environment's state; used by graders, analysis and synthesis validation. */
export type ToolKind = "read" | "write" | "think" | "generic";
