/** Reads a JSON file and validates it with a zod schema, reporting every problem with its path. */
import { readFileSync } from "node:fs";
import type { z } from "zod";
import { DataFileError } from "./data-file-error.js";

/** Formats zod issues as `path: message` lines (`[12].evaluation_criteria.actions[0].arguments: expected object`). */
function formatIssues(issues: readonly z.core.$ZodIssue[], limit = 10): string[] {
  const lines = issues.slice(0, limit).map((issue) => `${formatPath(issue.path)}: ${issue.message}`);
  if (issues.length > limit) lines.push(`… and ${issues.length - limit} more problems`);
  return lines;
}

function formatPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return "(root)";
  let out = "";
  for (const segment of path) {
    if (typeof segment === "number") out += `[${segment}]`;
    else out += out === "" ? String(segment) : `.${String(segment)}`;
  }
  return out;
}

/** Parses JSON text; the error names `file`. */
export function parseJsonText(text: string, file: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new DataFileError(file, [`not valid JSON (${(error as Error).message})`], { cause: error });
  }
}

/** Reads `file` as JSON; a missing file, bad JSON or a schema violation throws `DataFileError` naming the file. */
export function readJsonFile<Schema extends z.ZodType>(file: string, schema: Schema): z.output<Schema> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const problem = code === "ENOENT" ? "file not found" : `cannot read file (${(error as Error).message})`;
    throw new DataFileError(file, [problem], { cause: error });
  }
  return validateJson(parseJsonText(text, file), schema, file);
}

/** Validates parsed JSON; the error names `file` and lists the problems with their paths. */
export function validateJson<Schema extends z.ZodType>(value: unknown, schema: Schema, file: string): z.output<Schema> {
  const result = schema.safeParse(value);
  if (!result.success) throw new DataFileError(file, formatIssues(result.error.issues));
  return result.data;
}
