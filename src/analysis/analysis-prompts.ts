/** The analysis prompts, kept as files in `prompts/analysis/`, with `{{PLACEHOLDER}}` slots filled at run time. */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** `prompts/analysis` of the package (beside `dist/`). */
export const PROMPTS_DIRECTORY = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../prompts/analysis");

export type AnalysisPromptName = "discovery" | "discovery-merge" | "labeling";

/** A template whose placeholders were not all given values. */
export class PromptTemplateError extends Error {
  override readonly name = "PromptTemplateError";
  constructor(
    readonly template: string,
    readonly missing: readonly string[],
  ) {
    super(`prompt ${template}: no value for ${missing.map((name) => `{{${name}}}`).join(", ")}`);
  }
}

const cache = new Map<string, string>();

/** Reads `prompts/analysis/<name>.md` and fills its placeholders; every placeholder needs a value. */
export function analysisPrompt(name: AnalysisPromptName, values: Readonly<Record<string, string | number>>, directory = PROMPTS_DIRECTORY): string {
  const file = path.join(directory, `${name}.md`);
  let template = cache.get(file);
  if (template === undefined) {
    template = readFileSync(file, "utf8");
    cache.set(file, template);
  }
  const missing = [...template.matchAll(/\{\{([A-Z_]+)\}\}/g)].map((match) => match[1] as string).filter((key) => values[key] === undefined);
  if (missing.length > 0) throw new PromptTemplateError(file, [...new Set(missing)]);
  return template.replace(/\{\{([A-Z_]+)\}\}/g, (_, key: string) => String(values[key]));
}
