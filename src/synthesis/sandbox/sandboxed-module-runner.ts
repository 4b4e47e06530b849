/** `ModuleRunner` over the sandbox: an untrusted module in QuickJS in a worker thread, with a hard wall-clock stop. */
import { Worker } from "node:worker_threads";
import type { z } from "zod";
import type { ModuleInstance, ModuleTool, ToolOutcome, Verdict } from "../../envs/modules/capability-module.js";
import { createModuleSdk } from "../../envs/modules/module-sdk.js";
import type { ModuleRunner } from "../../envs/modules/module-runner.js";
import { formatIssues, moduleInstanceSchema, moduleMetadataSchema, toolOutcomeSchema, verdictSchema } from "./module-value-schemas.js";
import { compileQuickJs, resolveSandboxLimits } from "./quickjs-sandbox.js";
import type { SandboxLimits, SandboxMethod } from "./quickjs-sandbox.js";
import { SandboxError } from "./sandbox-error.js";
import type { SandboxWorkerData, SandboxWorkerRequest, SandboxWorkerResponse } from "./sandbox-worker.js";
import { transpileModuleSource } from "./transpile-module-source.js";

/** A sandboxed module: the `ModuleRunner` interface plus `dispose()` (stops its worker). */
export interface SandboxedModuleRunner extends ModuleRunner {
  dispose(): Promise<void>;
}

/** Options of `loadSandboxedModule`. */
export interface SandboxOptions {
  /** The module's TypeScript source. */
  source: string;
  limits?: Partial<SandboxLimits>;
  /**
   * Extra wall-clock time past `callWallMilliseconds` before the host terminates the worker (default 1000 ms): the
   * interrupt handler stops JavaScript loops, this stops everything else (e.g. a native built-in grinding near the
   * memory limit). The module is reloaded in a fresh worker on the next call.
   */
  hardStopGraceMilliseconds?: number;
}

/**
 * Transpiles and loads an untrusted module in the sandbox and checks its exported shape; throws a `SandboxError`
 * (kind `syntax`, `import`, `shape`, `throw`, `timeout`, `memory`, …) if it cannot be loaded. Every later call's result
 * is checked against the contract's schema (kind `shape` when malformed).
 */
export async function loadSandboxedModule(options: SandboxOptions): Promise<SandboxedModuleRunner> {
  const javascript = transpileModuleSource(options.source);
  const limits = resolveSandboxLimits(options.limits);
  const host = new SandboxHost({ javascript, sdkSource: createModuleSdk.toString(), limits, wasmModule: await compileQuickJs() }, options.hardStopGraceMilliseconds ?? 1000);
  try {
    const metadata = parse<z.infer<typeof moduleMetadataSchema>>(moduleMetadataSchema, await host.call("metadata", {}, "load"), "load", "the default export");
    return {
      capability: metadata.capability,
      description: metadata.description,
      policy: metadata.policy,
      tools: metadata.tools as ModuleTool[],
      newTools: metadata.newTools,
      readTools: metadata.readTools,
      ...(metadata.difficulty === undefined ? {} : { difficulty: metadata.difficulty }),
      generate: async (seed, difficulty) => parse<ModuleInstance>(moduleInstanceSchema, await host.call("generate", difficulty === undefined ? { seed } : { seed, difficulty }), "generate", "the instance"),
      runTool: async (state, name, args) => parse<ToolOutcome>(toolOutcomeSchema, await host.call("runTool", { state, name, arguments: args }), "runTool", "the tool outcome"),
      verify: async (input) => parse<Verdict>(verdictSchema, await host.call("verify", { input }), "verify", "the verdict"),
      dispose: () => host.dispose(),
    };
  } catch (error) {
    await host.dispose();
    throw error;
  }
}

/** Checks a value against the contract's schema; `T` is the contract's (narrower, JSON-typed) view of it. */
function parse<T>(schema: z.ZodType, value: unknown, functionName: string, what: string): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data as T;
  const issues = formatIssues(result.error);
  throw new SandboxError("shape", functionName, `${what} does not match the module contract: ${issues.join("; ")}`, { issues, value });
}

/**
 * Owns the worker: serializes calls, enforces the hard stop, and after a `timeout`, `memory` or `crash` terminates the
 * worker, so the next call runs in a fresh worker with a fresh QuickJS instance (the module reloaded): nothing a
 * failed call left behind survives it.
 */
class SandboxHost {
  private worker: Worker | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private nextId = 0;
  private disposed = false;

  constructor(
    private readonly data: SandboxWorkerData,
    private readonly graceMilliseconds: number,
  ) {}

  call(method: SandboxMethod, input: unknown, functionName: string = method): Promise<unknown> {
    const run = this.queue.then(() => this.callNow(method, input, functionName));
    this.queue = run.catch(() => undefined);
    return run;
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    const worker = this.worker;
    this.worker = undefined;
    if (worker !== undefined) await worker.terminate();
  }

  private startWorker(): Worker {
    // The worker's own V8 heap (the JSON texts passing through) is capped here; the module's QuickJS instance lives in
    // a WebAssembly memory outside that heap, capped at `memoryBytes` by the sandbox itself. A 1 MiB stack (the main
    // thread's size, not a worker's default 4 MiB) ends a recursive native built-in (JSON.stringify of 100,000 nested
    // arrays, an endless toJSON chain) in well under a second, while QuickJS's own check still catches JavaScript
    // recursion first.
    const worker = new Worker(new URL("./sandbox-worker.js", import.meta.url), { workerData: this.data, resourceLimits: { maxOldGenerationSizeMb: 256, stackSizeMb: 1 } });
    worker.unref();
    this.worker = worker;
    return worker;
  }

  private callNow(method: SandboxMethod, input: unknown, functionName: string): Promise<unknown> {
    if (this.disposed) return Promise.reject(new SandboxError("crash", functionName, "the sandbox was disposed"));
    const fresh = this.worker === undefined;
    const worker = this.worker ?? this.startWorker();
    const id = this.nextId++;
    // A fresh worker also starts, instantiates QuickJS and loads the module (under its own time limit): allow for that once.
    const limit = this.data.limits.callWallMilliseconds * (fresh ? 2 : 1) + this.graceMilliseconds + (fresh ? 2000 : 0);
    return new Promise((resolve, reject) => {
      const settle = (outcome: () => void): void => {
        clearTimeout(timer);
        worker.off("message", onMessage);
        worker.off("error", onError);
        worker.off("exit", onExit);
        outcome();
      };
      const kill = (error: SandboxError): void => {
        if (this.worker === worker) this.worker = undefined;
        void worker.terminate();
        settle(() => reject(error));
      };
      const onMessage = (response: SandboxWorkerResponse): void => {
        if (response.id !== id) return;
        if (response.ok) {
          settle(() => {
            try {
              resolve(JSON.parse(response.resultJson));
            } catch (error) {
              reject(new SandboxError("non-json", functionName, `the result is not JSON: ${String(error)}`, response.resultJson.slice(0, 200)));
            }
          });
          return;
        }
        const { kind, message, value } = response.error;
        const error = new SandboxError(kind, response.error.functionName, message, value);
        // After a timeout or exhausted memory the QuickJS heap may be in any state: start the next call afresh.
        if (kind === "timeout" || kind === "memory" || kind === "crash") kill(error);
        else settle(() => reject(error));
      };
      const onError = (error: Error): void => kill(new SandboxError("crash", functionName, `the sandbox worker failed: ${error.message}`, error.message));
      const onExit = (code: number): void => kill(new SandboxError("crash", functionName, `the sandbox worker exited with code ${code}`, code));
      const timer = setTimeout(
        () => kill(new SandboxError("timeout", functionName, `did not return within ${limit} ms (hard stop: the sandbox worker was terminated)`, limit)),
        limit,
      );
      worker.on("message", onMessage);
      worker.on("error", onError);
      worker.on("exit", onExit);
      worker.postMessage({ id, method, argumentsJson: JSON.stringify(input), functionName } satisfies SandboxWorkerRequest);
    });
  }
}
