/** The stages view: each `trace run` stage's status and timing, the configuration, and what is not there yet. */
import { existsSync, readFileSync, statSync } from "node:fs";
import { PIPELINE_STAGES } from "../pipeline/run-pipeline.js";
import type { StageMarker } from "../run/stage-marker.js";
import { checkRunDirectory, type DashboardRun } from "./dashboard-run.js";

export interface StageRow {
  stage: string;
  status: "done" | "not done";
  marker: StageMarker | null;
}

export interface StagesView {
  root: string;
  /** The resolved configuration (`config.json`), or null with `notices` saying why. */
  configuration: unknown;
  stages: StageRow[];
  /** Seconds since the run directory last changed (config, stages, store or its WAL, adapters' metrics). */
  idleSeconds: number | null;
  notices: string[];
}

/** Newest modification time of the files a running pipeline touches, in milliseconds. */
function lastChange(run: DashboardRun["run"]): number | null {
  const files = [run.configFile, run.storeFile, `${run.storeFile}-wal`, run.stageMarkerFile("base"), run.adaptersDirectory, run.environmentIndexFile, run.evaluationResultsFile];
  const times = files.flatMap((file) => statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? []);
  return times.length === 0 ? null : Math.max(...times);
}

/** Reads the run's stage markers and configuration; a half-written run lists what is missing in `notices`. */
export function readStagesView(dashboardRun: DashboardRun): StagesView {
  const { run } = dashboardRun;
  checkRunDirectory(run);
  const notices: string[] = [];
  let configuration: unknown = null;
  if (!existsSync(run.configFile)) notices.push("config.json is missing: the run was not started by `trace run`, or is being set up");
  else {
    try {
      configuration = JSON.parse(readFileSync(run.configFile, "utf8"));
    } catch (error) {
      notices.push(`config.json is not JSON: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  const stages = PIPELINE_STAGES.map((stage): StageRow => {
    const marker = run.readStageMarker(stage) ?? null;
    return { stage, status: marker === null ? "not done" : "done", marker };
  });
  const missing = stages.filter((row) => row.status === "not done").map((row) => row.stage);
  const compareConfigured = configuration !== null && typeof configuration === "object" && "compare" in configuration;
  const expected = compareConfigured ? missing : missing.filter((stage) => stage !== "compare");
  if (expected.length > 0) notices.push(`stages not finished yet: ${expected.join(", ")}`);
  const changed = lastChange(run);
  return { root: dashboardRun.root, configuration, stages, idleSeconds: changed === null ? null : Math.max(0, (Date.now() - changed) / 1000), notices };
}
