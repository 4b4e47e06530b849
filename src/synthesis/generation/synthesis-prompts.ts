/** The generation agent's prompts, kept as files in `prompts/synthesis/`, with `{{PLACEHOLDER}}` slots filled at run time. */
import path from "node:path";
import { fillPromptFile, PromptTemplateError, PROMPTS_ROOT } from "../../prompts/prompt-file.js";

/** `prompts/synthesis` of the package (beside `dist/`). */
const SYNTHESIS_PROMPTS_DIRECTORY = path.join(PROMPTS_ROOT, "synthesis");

/** The prompt files. */
export type SynthesisPromptName = "generate-module" | "capability-request" | "attempt-feedback";

/** A template placeholder without a value (the shared `PromptTemplateError`, under the name this module exports). */
export class SynthesisPromptError extends PromptTemplateError {
  override readonly name = "SynthesisPromptError";
}

/** Reads `prompts/synthesis/<name>.md` and fills its placeholders (in one pass, so values may contain braces). */
export function synthesisPrompt(name: SynthesisPromptName, values: Readonly<Record<string, string | number>>): string {
  try {
    return fillPromptFile(path.join(SYNTHESIS_PROMPTS_DIRECTORY, `${name}.md`), values);
  } catch (error) {
    if (error instanceof PromptTemplateError) throw new SynthesisPromptError(error.template, error.missing);
    throw error;
  }
}
