/** The capability-environment SDK: the module contract, the native SDK, runners, the environment adapter and players. */
export type * from "./capability-module.js";
export { createModuleSdk } from "./module-sdk.js";
export { nativeModuleRunner, type ModuleRunner } from "./module-runner.js";
