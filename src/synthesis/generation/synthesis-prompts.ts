/** The generation agent's prompts, kept as files in `prompts/synthesis/`, with `{{PLACEHOLDER}}` slots filled at run time. */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** `prompts/synthesis` of the package (beside `dist/`). */
export const SYNTHESIS_PROMPTS_DIRECTORY = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../prompts/synthesis");

/** The prompt files. */
export type SynthesisPromptName = "generate-module" | "capability-request" | "attempt-feedback";

/** A template placeholder without a value. */
export class SynthesisPromptError extends Error {
  override readonly name = "SynthesisPromptError";
  constructor(
    readonly template: string,
    readonly missing: readonly string[],
  ) {
    super(`prompt ${template}: no value for ${missing.map((name) => `{{${name}}}`).join(", ")}`);
  }
}

/** Reads `prompts/synthesis/<name>.md` and fills its placeholders (in one pass, so values may contain braces). */
export function synthesisPrompt(name: SynthesisPromptName, values: Readonly<Record<string, string | number>>): string {
  const file = path.join(SYNTHESIS_PROMPTS_DIRECTORY, `${name}.md`);
  const template = readFileSync(file, "utf8");
  const missing = [...template.matchAll(/\{\{([A-Z_]+)\}\}/g)].map((match) => match[1] as string).filter((key) => values[key] === undefined);
  if (missing.length > 0) throw new SynthesisPromptError(file, [...new Set(missing)]);
  return template.replace(/\{\{([A-Z_]+)\}\}/g, (_, key: string) => String(values[key]));
}
