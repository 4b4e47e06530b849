/**
 * The project's prompts live as markdown files under `prompts/` (beside `dist/`), with `{{PLACEHOLDER}}` slots that
 * are filled at run time in one pass (so a value may itself contain braces or another slot's name).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { TraceError } from "../spec/trace-error.js";

/** `prompts/` of the package. */
export const PROMPTS_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../prompts");

/** A template whose placeholders were not all given values. */
export class PromptTemplateError extends TraceError {
  override readonly name: string = "PromptTemplateError";
  constructor(
    readonly template: string,
    readonly missing: readonly string[],
  ) {
    super(`prompt ${template}: no value for ${missing.map((name) => `{{${name}}}`).join(", ")}`, { category: "data" });
  }
}

const PLACEHOLDER = /\{\{([A-Z_]+)\}\}/g;
const templates = new Map<string, string>();

/** Reads `file` (once per process) and fills every placeholder; a placeholder without a value throws `PromptTemplateError`. */
export function fillPromptFile(file: string, values: Readonly<Record<string, string | number>>): string {
  let template = templates.get(file);
  if (template === undefined) {
    template = readFileSync(file, "utf8");
    templates.set(file, template);
  }
  const missing = [...template.matchAll(PLACEHOLDER)].map((match) => match[1] as string).filter((key) => values[key] === undefined);
  if (missing.length > 0) throw new PromptTemplateError(file, [...new Set(missing)]);
  return template.replace(PLACEHOLDER, (_, key: string) => String(values[key]));
}
