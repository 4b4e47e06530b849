/** Renders a τ²-bench user scenario as the text the user simulator reads (τ²'s `str(UserScenario)`). */
import type { Tau2Task } from "./task-schema.js";

/** Python's `textwrap.indent`: prefixes every line that is not whitespace only. */
export function indentText(text: string, prefix: string): string {
  return text
    .split(/(?<=\n)/)
    .map((line) => (line.trim() === "" ? line : prefix + line))
    .join("");
}

/** The scenario text given to the user simulator. */
export function formatUserScenario(scenario: Tau2Task["user_scenario"]): string {
  const lines: string[] = [];
  if (scenario.persona !== null && scenario.persona !== undefined) {
    lines.push("Persona:", indentText(scenario.persona, "\t"));
  }
  lines.push("Instructions:", indentText(formatInstructions(scenario.instructions), "\t"));
  return lines.join("\n");
}

function formatInstructions(instructions: Tau2Task["user_scenario"]["instructions"]): string {
  if (typeof instructions === "string") return instructions;
  const lines = [`Domain: ${instructions.domain}`, `Reason for call:\n${indentText(instructions.reason_for_call, "\t")}`];
  if (instructions.known_info != null) lines.push(`Known info:\n${indentText(instructions.known_info, "\t")}`);
  if (instructions.unknown_info != null) lines.push(`Unknown info:\n${indentText(instructions.unknown_info, "\t")}`);
  lines.push(`Task instructions:\n${indentText(instructions.task_instructions, "\t")}`);
  return lines.join("\n");
}
