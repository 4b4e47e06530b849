/** The capability-environment SDK: the module contract, the native SDK, runners, the environment adapter, fixed policies and checks. */
export type * from "./capability-module.js";
export { checkDeterminism } from "./determinism-check.js";
export { createModuleEnvironment, seedTaskId, UnknownSeedTaskError, type ModuleEnvironment } from "./module-environment.js";
export { playDoNothing, playReadOnly, playSolution, readOnlyCalls, solutionReply } from "./module-policies.js";
export { nativeModuleRunner, type ModuleRunner } from "./module-runner.js";
export { createModuleSdk } from "./module-sdk.js";
export { executeModuleToolCall } from "./module-tool-call.js";
export { checkVerdict } from "./module-verdict.js";
export { replayCalls, verifierInputFromCalls, verifierInputFromMessages } from "./verifier-input.js";
