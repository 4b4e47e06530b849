/**
 * One tool call against a module's JSON state, as an episode and the grader's replay both run it: unknown tools,
 * arguments that are not a JSON object and tools that throw become error observations (state unchanged), never crashes.
 */
import type { Json } from "./capability-module.js";
import type { ModuleRunner } from "./module-runner.js";

/** What one executed call produced: the parsed arguments (empty when unparseable), the observation and the new state. */
export interface ExecutedCall {
  name: string;
  arguments: { [key: string]: Json };
  output: string;
  error: boolean;
  state: { [key: string]: Json };
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Parses the model's raw argument text; an error observation text when it is not a JSON object. */
function parseToolArguments(text: string): { [key: string]: Json } | string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.trim() === "" ? "{}" : text);
  } catch (error) {
    return `Error: arguments are not valid JSON: ${errorMessage(error)}`;
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) return "Error: arguments must be a JSON object";
  return parsed as { [key: string]: Json };
}

/** Runs `name` with the raw argument text on `state` through the runner. */
export async function executeModuleToolCall(
  runner: ModuleRunner,
  state: { [key: string]: Json },
  name: string,
  argumentsText: string,
): Promise<ExecutedCall> {
  const parsed = parseToolArguments(argumentsText);
  if (typeof parsed === "string") return { name, arguments: {}, output: parsed, error: true, state };
  if (!runner.tools.some((tool) => tool.function.name === name)) {
    return { name, arguments: parsed, output: `Error: Tool '${name}' not found.`, error: true, state };
  }
  try {
    const outcome = await runner.runTool(state, name, parsed);
    const output = outcome.error && !outcome.output.startsWith("Error:") ? `Error: ${outcome.output}` : outcome.output;
    return { name, arguments: parsed, output, error: outcome.error, state: outcome.error ? state : outcome.state };
  } catch (error) {
    return { name, arguments: parsed, output: `Error: ${errorMessage(error)}`, error: true, state };
  }
}
