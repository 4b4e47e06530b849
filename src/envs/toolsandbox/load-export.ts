/** Reads ToolSandbox's export and scored conversations: plain or gzip-compressed JSON, validated with zod. */
import { readFileSync } from "node:fs";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import type { z } from "zod";
import { DataFileError } from "../core/data-file-error.js";
import { parseJsonText, validateJson } from "../core/read-json-file.js";
import { decodeSpecialFloats, exportSchema, gradingChecksSchema, type GradingChecks, type ToolSandboxExport } from "./export-schema.js";

/** Reads a JSON file that may be gzip-compressed (recognised by its magic bytes, whatever its name). */
export function readMaybeGzipJson<Schema extends z.ZodType>(file: string, schema: Schema): z.output<Schema> {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new DataFileError(file, [code === "ENOENT" ? "file not found" : `cannot read file (${(error as Error).message})`], { cause: error });
  }
  let text: string;
  try {
    text = (bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b ? gunzipSync(bytes) : bytes).toString("utf8");
  } catch (error) {
    throw new DataFileError(file, [`not valid gzip (${(error as Error).message})`], { cause: error });
  }
  return validateJson(decodeSpecialFloats(parseJsonText(text, file)), schema, file);
}

const exportCache = new Map<string, ToolSandboxExport>();

/** Loads `scenarios.json.gz` from a data directory (once per process). */
export function loadToolSandboxExport(dataDirectory: string): ToolSandboxExport {
  const file = path.resolve(dataDirectory, "scenarios.json.gz");
  const cached = exportCache.get(file);
  if (cached !== undefined) return cached;
  const loaded = readMaybeGzipJson(file, exportSchema);
  exportCache.set(file, loaded);
  return loaded;
}

/** Loads scored conversations in the shape of `grading_checks.json.gz`. */
export function loadGradingChecks(file: string): GradingChecks {
  return readMaybeGzipJson(file, gradingChecksSchema);
}
