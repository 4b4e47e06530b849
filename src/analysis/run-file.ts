/**
 * Run files of the TRACE reference code (`analysis/run_XX.json`): one labeling run's task keys per capability,
 * split by label (LACKING / PRESENT / NA) and outcome (failed / passed), plus the totals of failed and passed tasks.
 */
import { readdirSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { readJsonFile } from "../envs/core/read-json-file.js";

const keyList = z.array(z.string());

/** One capability's six lists of task keys (e.g. `airline:12`); together they partition the labeled tasks. */
const capabilityLabelListsSchema = z.object({
  lacking_failed: keyList,
  present_failed: keyList,
  na_failed: keyList,
  lacking_passed: keyList,
  present_passed: keyList,
  na_passed: keyList,
});
export type CapabilityLabelLists = z.infer<typeof capabilityLabelListsSchema>;

/** A labeling failure kept in a run file (our addition; the reference code ignores unknown fields). */
const labelingFailureSchema = z.object({ keys: keyList, error: z.string() });
export type LabelingFailure = z.infer<typeof labelingFailureSchema>;

const runFileSchema = z.looseObject({
  attempt: z.number().int(),
  totals: z.object({ total_failed: z.number().int().nonnegative(), total_passed: z.number().int().nonnegative() }),
  labels: z.record(z.string(), capabilityLabelListsSchema),
  failures: z.array(labelingFailureSchema).optional(),
});
export type RunFile = z.infer<typeof runFileSchema>;

/** `run_01.json` … : the file name of labeling run `attempt` (1-based). */
export function runFileName(attempt: number): string {
  return `run_${String(attempt).padStart(2, "0")}.json`;
}

/** Reads and validates one run file; a malformed file throws `DataFileError` naming the file and the field. */
export function readRunFile(file: string): RunFile {
  return readJsonFile(file, runFileSchema);
}

/** The `run_*.json` files of a directory, sorted by name (as the reference code's glob). */
export function listRunFiles(directory: string): string[] {
  return readdirSync(directory)
    .filter((name) => /^run_.*\.json$/.test(name))
    .sort()
    .map((name) => path.join(directory, name));
}
