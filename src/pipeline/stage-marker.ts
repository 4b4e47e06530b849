/** Stage markers: `RUN/stages/<stage>.json`, written when a stage finishes; a stage with a marker is skipped on resume. */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

/** What a marker records. */
export interface StageMarker {
  stage: string;
  startedAt: string;
  finishedAt: string;
  seconds: number;
  summary: string;
}

function markerFile(runDirectory: string, stage: string): string {
  return path.join(runDirectory, "stages", `${stage}.json`);
}

/** The stage's marker, or undefined when the stage has not finished. */
export function readStageMarker(runDirectory: string, stage: string): StageMarker | undefined {
  const file = markerFile(runDirectory, stage);
  return existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as StageMarker) : undefined;
}

/** Records that the stage finished. */
export function writeStageMarker(runDirectory: string, marker: StageMarker): void {
  mkdirSync(path.join(runDirectory, "stages"), { recursive: true });
  writeFileSync(markerFile(runDirectory, marker.stage), JSON.stringify(marker, null, 2) + "\n");
}
