/** The capability-environment SDK: the module contract, the native SDK, runners, the environment adapter, fixed policies and checks. */
export type * from "./capability-module.js";
export { checkDeterminism, type DeterminismMismatch, type DeterminismReport } from "./determinism-check.js";
export { createModuleEnvironment, seedTaskId, UnknownSeedTaskError, type ModuleEnvironment, type ModuleEnvironmentOptions } from "./module-environment.js";
export { playDoNothing, playPolicy, playReadOnly, playSolution, readOnlyCalls, solutionReply } from "./module-policies.js";
export { nativeModuleRunner, type ModuleRunner } from "./module-runner.js";
export { createModuleSdk } from "./module-sdk.js";
export { executeModuleToolCall, parseToolArguments, type ExecutedCall } from "./module-tool-call.js";
export { checkVerdict, MalformedVerdictError } from "./module-verdict.js";
export { replayCalls, verifierInputFromCalls, verifierInputFromMessages } from "./verifier-input.js";
