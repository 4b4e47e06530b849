/**
 * The directory of one generated capability environment (`RUN/environments/<capability>/` in a run): the kept
 * attempt's `module.ts` and `report.json` (every attempt's gates and calibration; `done` once one passed).
 */
import path from "node:path";
import { z } from "zod";
import { readJsonFile } from "../../envs/core/read-json-file.js";

export const MODULE_FILE = "module.ts";
export const ENVIRONMENT_REPORT_FILE = "report.json";

/** What `report.json` beside a module holds. */
export interface EnvironmentReportFile {
  capability: string;
  /** The target's name (`tau2-airline`, …, or a user's target's environment name). */
  target: string;
  done: boolean;
  bestAttempt: number;
  attempts: { attempt: number; passed: boolean; problem: string | null; report: string; validation: unknown; calibration: unknown }[];
}

export const environmentReportSchema: z.ZodType<EnvironmentReportFile> = z.looseObject({
  capability: z.string(),
  target: z.string().min(1),
  done: z.boolean(),
  bestAttempt: z.number().int(),
  attempts: z.array(
    z.looseObject({ attempt: z.number().int(), passed: z.boolean(), problem: z.string().nullable(), report: z.string(), validation: z.unknown(), calibration: z.unknown() }),
  ),
});

/** Reads `report.json` of an environment directory (`DataFileError` naming the file and path when malformed). */
export function readEnvironmentReport(directory: string): EnvironmentReportFile {
  return readJsonFile(path.join(directory, ENVIRONMENT_REPORT_FILE), environmentReportSchema);
}
