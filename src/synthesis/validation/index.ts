/** Validation gates of capability modules: shape, determinism, solvability, non-triviality, target tool schemas. */
export { formatValidationReport, validationReport, type GateResult, type ValidationReport } from "./gate-result.js";
export { parseSynthesisTarget, SYNTHESIS_TARGETS, targetDomain, targetTools, UnknownSynthesisTargetError, type SynthesisTarget, type TargetTool } from "./target-tools.js";
export { schemaStructure, toolSchemaProblems } from "./tool-schema-match.js";
export { GATE_NAMES, validateModule, validateModuleSource, type ValidationOptions } from "./validate-module.js";
