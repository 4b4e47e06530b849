/** A `trace run` directory: its layout, and every artifact read and written through its schema. */
export { openRunDirectory, RunDirectory, type AnalysisLabeler } from "./run-directory.js";
export { RunArtifactError } from "./run-artifact-error.js";
export { checkDirectoryPath, checkExistingDirectory, checkOutputFilePath, UnusablePathError } from "./path-checks.js";
export { readJsonArtifact, writeJsonArtifact } from "./json-artifact.js";
export type { CalibrationStatistics, CapabilityEnvironmentEntry, EnvironmentIndex, SkippedCapability } from "./environment-index.js";
export type { EvaluationResults, PassCount } from "./evaluation-results.js";
export type { RoutedTask, RoutingFile } from "./routing-file.js";
export type { StageMarker } from "./stage-marker.js";
export type { TrainedAdapter } from "./trained-adapter.js";
