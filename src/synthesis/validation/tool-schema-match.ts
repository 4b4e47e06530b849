/** Whether a module's tool keeps a target tool's interface: same name, same argument schema up to documentation. */
import type { ModuleTool } from "../../envs/modules/capability-module.js";
import { createModuleSdk } from "../../envs/modules/module-sdk.js";
import type { Json } from "../../envs/modules/capability-module.js";
import type { TargetTool } from "./target-tools.js";

const sdk = createModuleSdk();

/** A JSON Schema without its documentation keys (`description`, `title`), so reworded docs still match. */
function schemaStructure(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map((item) => schemaStructure(item));
  if (schema === null || typeof schema !== "object") return schema;
  const structure: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === "description" || key === "title") continue;
    // Inside `properties` and `$defs` the keys are names, not keywords: keep all of them.
    structure[key] = key === "properties" || key === "$defs" ? mapValues(value, schemaStructure) : schemaStructure(value);
  }
  return structure;
}

function mapValues(value: unknown, transform: (item: unknown) => unknown): unknown {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, transform(item)]));
}

/**
 * Problems of one module tool against the target: none when a target tool of the same name has the same argument
 * schema structure, or the tool is declared in `newTools` with a reason.
 */
export function toolSchemaProblems(tool: ModuleTool, target: readonly TargetTool[], newTools: readonly { name: string; reason: string }[]): string[] {
  const name = tool.function.name;
  const declared = newTools.find((entry) => entry.name === name);
  const match = target.find((candidate) => candidate.name === name);
  if (match === undefined) {
    if (declared !== undefined && declared.reason.trim() !== "") return [];
    return [`${name}: no target tool has this name and it is not declared in newTools with a reason`];
  }
  const actual = sdk.canonical(schemaStructure(tool.function.parameters) as Json);
  const expected = sdk.canonical(schemaStructure(match.parameters) as Json);
  if (actual === expected) return [];
  if (declared !== undefined) return [`${name}: declared new but a target tool of that name exists with another schema; rename it`];
  return [`${name}: argument schema differs from the target's (expected ${truncate(expected)}, got ${truncate(actual)})`];
}

function truncate(text: string): string {
  return text.length > 240 ? `${text.slice(0, 240)}…` : text;
}
