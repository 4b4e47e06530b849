/** Reading a run artifact through its schema (any problem a one-line `RunArtifactError`) and writing one as indented JSON. */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { z } from "zod";
import { formatIssues } from "../envs/core/read-json-file.js";
import { RunArtifactError } from "./run-artifact-error.js";

/** Reads `file` as JSON and validates it; a missing file, bad JSON or a schema violation throws `RunArtifactError`. */
export function readJsonArtifact<Schema extends z.ZodType>(file: string, schema: Schema): z.output<Schema> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new RunArtifactError(file, [code === "ENOENT" ? "file not found" : `cannot read file (${(error as Error).message})`], { cause: error });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new RunArtifactError(file, [`not valid JSON (${(error as Error).message})`], { cause: error });
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new RunArtifactError(file, formatIssues(parsed.error.issues));
  return parsed.data;
}

/** Writes `value` as two-space-indented JSON with a final newline, creating the file's directory. */
export function writeJsonArtifact(file: string, value: unknown): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(value, null, 2) + "\n");
}
