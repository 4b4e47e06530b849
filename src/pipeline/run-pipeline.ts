/**
 * `trace run`: base (TRACE-mini only) → rollout → analyze → synthesize → train → route → evaluate → compare (when configured). Each stage writes `stages/<stage>.json` when
 * it finishes and is skipped on a later run while that marker exists (delete a marker to redo a stage); the report is
 * printed at the end either way.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { RunArtifactError } from "../run/run-artifact-error.js";
import { openRunDirectory, type RunDirectory } from "../run/run-directory.js";
import { runGrpo } from "../training/run-grpo.js";
import { runAnalyzeStage } from "./analyze-stage.js";
import { checkRoleEndpoints } from "./endpoints.js";
import { handWrittenRunner } from "./environment-loader.js";
import { runBaseStage } from "./base-stage.js";
import { runCompareStage } from "./compare-stage.js";
import { runEvaluateStage } from "./evaluate-stage.js";
import { createPipelineContext, type PipelineContext } from "./pipeline-context.js";
import type { ResolvedPipelineConfig } from "./pipeline-config.js";
import { runRolloutStage } from "./rollout-stage.js";
import { runRouteStage } from "./route-stage.js";
import { runSynthesizeStage } from "./synthesize-stage.js";
import type { GrpoTrainer } from "./capability-grpo.js";
import { runTrainStage } from "./train-stage.js";
import { TraceError } from "../spec/trace-error.js";

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
  /** Delete what the run directory holds and start again (needed to reuse it with another model, user or target). */
  startOver?: boolean;
}

/** The run directory holds a run of another configuration (model, user, target, labeler or environments differ). */
export class RunConfigurationMismatchError extends TraceError {
  override readonly name = "RunConfigurationMismatchError";
  constructor(
    readonly runDirectory: string,
    readonly differences: readonly string[],
  ) {
    super(`${runDirectory} holds a run of another configuration (${differences.join("; ")}); use another run directory, or --start-over to delete it and start again`, { category: "usage" });
  }
}

/** What a run's results depend on: a run directory is only resumed with the same values. */
function identity(config: ResolvedPipelineConfig): Record<string, unknown> {
  const endpoint = (role: "policy" | "user" | "analyst" | "generator") => {
    const name = config.roles[role];
    const defined = name === undefined ? undefined : config.endpoints[name];
    // The model, not the URL: a server restarted on another port serves the same run.
    return defined === undefined ? (name ?? null) : defined.model;
  };
  // A checkpoint inside the run directory moves with it.
  const inside = !path.relative(config.runDirectory, config.model.path).startsWith("..");
  return {
    "model.path": inside ? path.relative(config.runDirectory, config.model.path) : config.model.path,
    "model.servedModelName": config.model.servedModelName,
    "model.initTiny": config.model.initTiny ?? null,
    "model.sft": config.model.sft ?? null,
    target: config.target,
    "policy endpoint model": endpoint("policy"),
    "user endpoint model": endpoint("user"),
    "analysis.labeler": config.analysis.labeler,
    "analyst endpoint model": endpoint("analyst"),
    "environments.source": config.environments.source,
    "generator endpoint model": endpoint("generator"),
  };
}

/** The differences between the run directory's recorded configuration and this one, by field. */
export function configurationDifferences(recorded: ResolvedPipelineConfig, current: ResolvedPipelineConfig): string[] {
  const before = identity(recorded);
  const after = identity(current);
  return Object.keys(after).flatMap((key) => {
    const [was, is] = [JSON.stringify(before[key] ?? null), JSON.stringify(after[key] ?? null)];
    if (was === is) return [];
    if (key === "target") {
      const fields = Object.keys({ ...(recorded.target as object), ...(current.target as object) }).filter(
        (field) => JSON.stringify((recorded.target as Record<string, unknown>)[field]) !== JSON.stringify((current.target as Record<string, unknown>)[field]),
      );
      return fields.map((field) => `target.${field}: ${JSON.stringify((recorded.target as Record<string, unknown>)[field]) ?? "unset"} → ${JSON.stringify((current.target as Record<string, unknown>)[field]) ?? "unset"}`);
    }
    return [`${key}: ${was} → ${is}`];
  });
}

/**
 * With hand-written environments, every module `environments.map` names must exist: checked before any stage runs
 * (an `UnknownEnvironmentModuleError` names the capability, the module and the known modules), not when the
 * synthesize stage reaches a kept capability.
 */
function checkEnvironmentMap(config: ResolvedPipelineConfig): void {
  if (config.environments.source !== "hand-written") return;
  for (const [capability, module] of Object.entries(config.environments.map)) handWrittenRunner(capability, module);
}

/** The configuration a run directory recorded (`config.json`); a file that is not JSON is a `RunArtifactError`. */
function recordedConfiguration(file: string): ResolvedPipelineConfig {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as ResolvedPipelineConfig;
  } catch (error) {
    throw new RunArtifactError(file, [`not JSON (${error instanceof Error ? error.message : String(error)})`], { cause: error });
  }
}

/** Refuses a run directory of another configuration (unless starting over), then records this one in `config.json`. */
function claimRunDirectory(config: ResolvedPipelineConfig, startOver: boolean): void {
  const run = openRunDirectory(config.runDirectory);
  // Before --start-over deletes anything: a run directory that is a file is refused, not removed.
  run.checkPath();
  const file = run.configFile;
  if (startOver && existsSync(config.runDirectory)) rmSync(config.runDirectory, { recursive: true, force: true });
  if (existsSync(file)) {
    const recorded = recordedConfiguration(file);
    // A `trace rollout` manifest (no `target`) is not a pipeline run; its store is reused as the rollout stage's.
    if (recorded.target !== undefined && recorded.model !== undefined) {
      const differences = configurationDifferences({ ...recorded, roles: recorded.roles ?? { policy: "worker", router: "worker" }, endpoints: recorded.endpoints ?? {} }, config);
      if (differences.length > 0) throw new RunConfigurationMismatchError(config.runDirectory, differences);
    }
  }
  run.create();
  writeFileSync(file, JSON.stringify(config, null, 2) + "\n");
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
  checkRoleEndpoints(config);
  checkEnvironmentMap(config);
  claimRunDirectory(config, options.startOver === true);
  const context = createPipelineContext(config, log);
  const stages: PipelineResult["stages"] = [];
  try {
    for (const [index, stage] of PIPELINE_STAGES.entries()) {
      const prefix = `[${index + 1}/${PIPELINE_STAGES.length} ${stage}]`;
      const marker = context.run.readStageMarker(stage);
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
      context.run.writeStageMarker({ stage, startedAt: new Date(started).toISOString(), finishedAt: new Date().toISOString(), seconds, summary });
      log(`${prefix} done in ${seconds.toFixed(1)} s: ${summary}`);
      stages.push({ stage, status: "ran", summary });
      if (stage === options.until) break;
    }
  } finally {
    await context.close();
  }
  return { stages, report: finalReport(context.run) };
}

/**
 * What `trace run` prints last: the evaluation's report, then, once the comparison has run, its tables (comparison.md
 * without its per-seed notes, which stay in the file).
 */
function finalReport(run: RunDirectory): string {
  const evaluation = run.readEvaluationReport();
  const comparison = run.readComparisonReport().split("\n## Notes\n")[0]!.trimEnd();
  return comparison === "" ? evaluation : `${evaluation.trimEnd()}\n\n${comparison}\n`;
}
