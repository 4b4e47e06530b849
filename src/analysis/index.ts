/** Capability analysis (TRACE step 2): aggregation, the LLM analyst, the reference-guided labeler and the report. */
export * from "./aggregate-capabilities.js";
export * from "./analysis-directory.js";
export { formatAnalysisReport, formatCapabilityTable } from "./analysis-report.js";
export { analyzeWithAnalyst, labelingRunPrefix, type AnalystAnalysisOptions, type AnalystAnalysisResult } from "./analyze-with-analyst.js";
export * from "./candidates-file.js";
export { discoverCapabilities, MAX_CAPABILITIES } from "./discover-capabilities.js";
export { DiscoveryFailedError } from "./discovery-failed-error.js";
export { formatAgreementTable, labelAgreement, type CapabilityAgreement } from "./label-agreement.js";
export { MissingDataDirectoryError } from "./missing-data-directory-error.js";
export { NoRunFilesError } from "./no-run-files-error.js";
export { NoTrajectoriesError } from "./no-trajectories-error.js";
export { REFERENCE_CAPABILITIES, REFERENCE_CAPABILITY_NAMES } from "./reference-capabilities.js";
export { labelWithReference, REFERENCE_RUN, runReferenceAnalysis } from "./reference-analysis.js";
export { referenceLabels } from "./reference-labeler.js";
export * from "./run-file.js";
export { trajectoryKey } from "./trajectory-key.js";
export { UnsupportedEnvironmentError } from "./unsupported-environment-error.js";
export { writeAnalysisReport } from "./write-analysis-report.js";
