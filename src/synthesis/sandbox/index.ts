/** The sandbox for untrusted capability modules: TypeScript → QuickJS (WebAssembly) in a worker, as a `ModuleRunner`. */
export { loadSandboxedModule, type SandboxedModuleRunner, type SandboxOptions } from "./sandboxed-module-runner.js";
export { QuickJsSandbox, defaultSandboxLimits, resolveSandboxLimits, type SandboxLimits, type SandboxMethod } from "./quickjs-sandbox.js";
export { SandboxError, type SandboxFailureKind } from "./sandbox-error.js";
export { transpileModuleSource } from "./transpile-module-source.js";
export * from "./module-value-schemas.js";
