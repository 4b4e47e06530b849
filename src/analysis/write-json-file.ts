/** Writes a JSON file atomically (temporary file, then rename), so a reader never sees it half-written. */
import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";

/** Writes `value` as indented JSON with a final newline. */
export function writeJsonFile(file: string, value: unknown): void {
  writeTextFile(file, JSON.stringify(value, null, 2) + "\n");
}

/** Writes text atomically, creating the parent directory. */
export function writeTextFile(file: string, text: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, text);
  renameSync(temporary, file);
}
