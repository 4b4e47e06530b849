/** Reading a run artifact through its schema (any problem a one-line `RunArtifactError`) and writing one as indented JSON. */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { z } from "zod";
import { DataFileError } from "../envs/core/data-file-error.js";
import { readJsonFile } from "../envs/core/read-json-file.js";
import { RunArtifactError } from "./run-artifact-error.js";

/** Reads `file` as JSON and validates it (`readJsonFile`); a missing file, bad JSON or a schema violation throws `RunArtifactError`. */
export function readJsonArtifact<Schema extends z.ZodType>(file: string, schema: Schema): z.output<Schema> {
  try {
    return readJsonFile(file, schema);
  } catch (error) {
    if (DataFileError.isInstance(error)) throw new RunArtifactError(error.file, error.problems, { cause: error.cause ?? error });
    throw error;
  }
}

/** Writes `value` as two-space-indented JSON with a final newline, creating the file's directory. */
export function writeJsonArtifact(file: string, value: unknown): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(value, null, 2) + "\n");
}
