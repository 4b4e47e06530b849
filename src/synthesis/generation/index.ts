/** The generation agent: an LLM writes capability modules, validated and calibrated, regenerated with feedback. */
export { extractCodeBlock, MissingCodeBlockError } from "./extract-code-block.js";
export { attemptReport, generateModule, type CapabilitySpecification, type GenerateModuleOptions, type GenerationAttempt, type GenerationResult } from "./generate-module.js";
export { sdkDocumentation, workedExample } from "./generation-context.js";
export { synthesisPrompt, SynthesisPromptError, SYNTHESIS_PROMPTS_DIRECTORY, type SynthesisPromptName } from "./synthesis-prompts.js";
export { ENVIRONMENT_REPORT_FILE, environmentReportSchema, MODULE_FILE, readEnvironmentReport, type EnvironmentReportFile } from "./environment-directory.js";
export { readKeptCapabilities, SelectedCapabilitiesError, synthesizeRun, type SynthesizeRunOptions } from "./synthesize-run.js";
