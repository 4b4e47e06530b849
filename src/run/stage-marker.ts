/** `RUN/stages/<stage>.json`: written when a stage of `trace run` finishes; a stage with a marker is skipped on resume. */
import { z } from "zod";

/** What a marker records. */
export interface StageMarker {
  stage: string;
  startedAt: string;
  finishedAt: string;
  seconds: number;
  /** The stage's one-line summary. */
  summary: string;
}

export const stageMarkerSchema: z.ZodType<StageMarker> = z.looseObject({
  stage: z.string(),
  startedAt: z.string(),
  finishedAt: z.string(),
  seconds: z.number(),
  summary: z.string(),
});
