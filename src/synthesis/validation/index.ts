/** Validation gates of capability modules: shape, target tool schemas, determinism, solvability, non-triviality, adversarial policies, stability. */
export { formatValidationReport, notRunGate, validationReport, type GateResult, type ValidationReport } from "./gate-result.js";
export { GatesStoppedError, guardRunner, type GuardedRunner, type ModuleCallCounts } from "./guarded-runner.js";
export { describeModuleError, escapeControlCharacters, moduleSays, quoteModuleText } from "./module-text.js";
export { stabilityGate, type FreshRunner, type PlayRecord, type StabilityOptions } from "./stability-gate.js";
export { customSynthesisTarget, parseSynthesisTarget, SYNTHESIS_TARGETS, targetDomain, targetTools, UnknownSynthesisTargetError, type SynthesisTarget, type TargetTool } from "./target-tools.js";
export { schemaStructure, toolSchemaProblems } from "./tool-schema-match.js";
export { GATE_NAMES, validateModule, validateModuleSource, type ValidationOptions } from "./validate-module.js";
