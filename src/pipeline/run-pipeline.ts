/**
 * `trace run`: base (TRACE-mini only) → rollout → analyze → synthesize → train → route → evaluate → compare (when configured). Each stage writes `stages/<stage>.json` when
 * it finishes and is skipped on a later run while that marker exists (delete a marker to redo a stage); the report is
 * printed at the end either way.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { runGrpo } from "../training/run-grpo.js";
import { runAnalyzeStage } from "./analyze-stage.js";
import { runBaseStage } from "./base-stage.js";
import { runCompareStage } from "./compare-stage.js";
import { reportFile, runEvaluateStage } from "./evaluate-stage.js";
import { createPipelineContext, type PipelineContext } from "./pipeline-context.js";
import type { ResolvedPipelineConfig } from "./pipeline-config.js";
import { runRolloutStage } from "./rollout-stage.js";
import { runRouteStage } from "./route-stage.js";
import { readStageMarker, writeStageMarker } from "./stage-marker.js";
import { runSynthesizeStage } from "./synthesize-stage.js";
import { runTrainStage, type GrpoTrainer } from "./train-stage.js";

/** The stages in order. */
export const PIPELINE_STAGES = ["base", "rollout", "analyze", "synthesize", "train", "route", "evaluate", "compare"] as const;
export type PipelineStage = (typeof PIPELINE_STAGES)[number];

export interface RunPipelineOptions {
  config: ResolvedPipelineConfig;
  /** Progress lines. */
  log: (line: string) => void;
  /** GRPO orchestration [`runGrpo` of src/training]. */
  trainer?: GrpoTrainer;
  /** The last stage to run (default: all of them); a later run resumes from the next one. */
  until?: PipelineStage;
}

export interface PipelineResult {
  /** Per stage: run now, or skipped (finished earlier). */
  stages: { stage: PipelineStage; status: "ran" | "skipped"; summary: string }[];
  report: string;
}

function stageRunner(stage: PipelineStage, context: PipelineContext, trainer: GrpoTrainer): Promise<string> {
  switch (stage) {
    case "base":
      return runBaseStage(context);
    case "rollout":
      return runRolloutStage(context);
    case "analyze":
      return runAnalyzeStage(context);
    case "synthesize":
      return runSynthesizeStage(context);
    case "train":
      return runTrainStage(context, trainer);
    case "route":
      return runRouteStage(context);
    case "evaluate":
      return runEvaluateStage(context);
    case "compare":
      return runCompareStage(context, trainer);
  }
}

/** Runs (or resumes) the pipeline in the configuration's run directory. */
export async function runPipeline(options: RunPipelineOptions): Promise<PipelineResult> {
  const { config, log } = options;
  mkdirSync(config.runDirectory, { recursive: true });
  writeFileSync(path.join(config.runDirectory, "config.json"), JSON.stringify(config, null, 2) + "\n");
  const context = createPipelineContext(config, log);
  const stages: PipelineResult["stages"] = [];
  try {
    for (const [index, stage] of PIPELINE_STAGES.entries()) {
      const prefix = `[${index + 1}/${PIPELINE_STAGES.length} ${stage}]`;
      const marker = readStageMarker(config.runDirectory, stage);
      if (marker !== undefined) {
        log(`${prefix} skipped (done at ${marker.finishedAt}): ${marker.summary}`);
        stages.push({ stage, status: "skipped", summary: marker.summary });
        if (stage === options.until) break;
        continue;
      }
      log(`${prefix} running`);
      const started = Date.now();
      const summary = await stageRunner(stage, context, options.trainer ?? runGrpo);
      const seconds = (Date.now() - started) / 1000;
      writeStageMarker(config.runDirectory, { stage, startedAt: new Date(started).toISOString(), finishedAt: new Date().toISOString(), seconds, summary });
      log(`${prefix} done in ${seconds.toFixed(1)} s: ${summary}`);
      stages.push({ stage, status: "ran", summary });
      if (stage === options.until) break;
    }
  } finally {
    await context.close();
  }
  const file = reportFile(config.runDirectory);
  return { stages, report: existsSync(file) ? readFileSync(file, "utf8") : "" };
}
