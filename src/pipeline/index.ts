/** The end-to-end pipeline (`trace run CONFIG`): stages, their resumable artifacts, the configuration and the report. */
export { loadPipelineConfig, parsePipelineConfig, pipelineConfigSchema, type PipelineConfig, type ResolvedPipelineConfig } from "./pipeline-config.js";
export { PipelineConfigError } from "./pipeline-config-error.js";
export { PIPELINE_STAGES, runPipeline, type PipelineResult, type PipelineStage, type RunPipelineOptions } from "./run-pipeline.js";
export { formatReport } from "./report-table.js";
export type { EvaluationResults, PassCount } from "../run/evaluation-results.js";
export { MissingCheckpointError } from "./missing-checkpoint-error.js";
export { EnvironmentValidationError } from "./synthesize-stage.js";
export { UnknownEnvironmentModuleError } from "./unknown-environment-module-error.js";
export type { GrpoTrainer } from "./capability-grpo.js";
export type { StageMarker, TrainedAdapter } from "../run/index.js";
