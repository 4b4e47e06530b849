/** Writes `report.md` of an analysis directory (and returns it), with the agreement table when both label sets exist. */
import { existsSync } from "node:fs";
import path from "node:path";
import { readScoresFile, REPORT_FILE } from "./analysis-directory.js";
import { formatAnalysisReport } from "./analysis-report.js";
import { labelAgreement } from "./label-agreement.js";
import { listRunFiles, readRunFile, runFileName } from "./run-file.js";
import { writeTextFile } from "./write-json-file.js";

export interface WriteAnalysisReportOptions {
  /** The analysis directory to report (holds `capability_scores.json`). */
  directory: string;
  title: string;
  /** The LLM analysis and the reference analysis of the same run; their agreement is reported when both have runs. */
  llmDirectory?: string;
  referenceDirectory?: string;
}

/** Builds the report from the directory's files, writes `report.md` beside them and returns the markdown. */
export function writeAnalysisReport(options: WriteAnalysisReportOptions): string {
  const scores = readScoresFile(options.directory);
  const runs = scores.run_files.map((file) => readRunFile(path.join(options.directory, file)));
  let agreement;
  const referenceFile = options.referenceDirectory === undefined ? undefined : path.join(options.referenceDirectory, runFileName(1));
  if (referenceFile !== undefined && existsSync(referenceFile) && options.llmDirectory !== undefined && existsSync(options.llmDirectory)) {
    const llmRuns = listRunFiles(options.llmDirectory).map((file) => readRunFile(file));
    if (llmRuns.length > 0) agreement = labelAgreement(readRunFile(referenceFile), llmRuns);
  }
  const markdown = formatAnalysisReport({ title: options.title, scores, runs, ...(agreement === undefined ? {} : { agreement }) });
  writeTextFile(path.join(options.directory, REPORT_FILE), markdown);
  return markdown;
}
