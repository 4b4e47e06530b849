/** The analysis prompts, kept as files in `prompts/analysis/`, with `{{PLACEHOLDER}}` slots filled at run time. */
import path from "node:path";
import { fillPromptFile, PROMPTS_ROOT } from "../prompts/prompt-file.js";

export { PromptTemplateError } from "../prompts/prompt-file.js";

/** `prompts/analysis` of the package (beside `dist/`). */
const PROMPTS_DIRECTORY = path.join(PROMPTS_ROOT, "analysis");

export type AnalysisPromptName = "discovery" | "discovery-merge" | "labeling";

/** Reads `prompts/analysis/<name>.md` and fills its placeholders; every placeholder needs a value. */
export function analysisPrompt(name: AnalysisPromptName, values: Readonly<Record<string, string | number>>, directory = PROMPTS_DIRECTORY): string {
  return fillPromptFile(path.join(directory, `${name}.md`), values);
}
