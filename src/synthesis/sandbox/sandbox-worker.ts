/** Worker-thread entry of the sandbox: owns one `QuickJsSandbox` and answers calls posted by the host. */
import { parentPort, workerData } from "node:worker_threads";
import { QuickJsSandbox } from "./quickjs-sandbox.js";
import type { SandboxLimits, SandboxMethod, WasmModule } from "./quickjs-sandbox.js";
import { SandboxError } from "./sandbox-error.js";

/** What the host passes when it starts the worker. */
export interface SandboxWorkerData {
  javascript: string;
  sdkSource: string;
  limits: SandboxLimits;
  /** QuickJS compiled once by the host (a compiled WebAssembly module is shared with the worker, not recompiled). */
  wasmModule?: WasmModule;
}

/** A call from the host. */
export interface SandboxWorkerRequest {
  id: number;
  method: SandboxMethod;
  argumentsJson: string;
  functionName: string;
}

/** The worker's answer: the result's JSON text, or the failure (kind, message, offending value). */
export type SandboxWorkerResponse =
  | { id: number; ok: true; resultJson: string }
  | { id: number; ok: false; error: { kind: SandboxError["kind"]; functionName: string; message: string; value: unknown } };

const port = parentPort;
if (port !== null) {
  const data = workerData as SandboxWorkerData;
  const failure = (id: number, error: unknown, functionName: string): SandboxWorkerResponse => {
    const sandboxError = SandboxError.isInstance(error) ? error : new SandboxError("crash", functionName, error instanceof Error ? error.message : String(error));
    const message = sandboxError.message.slice(`${sandboxError.functionName}: ${sandboxError.kind}: `.length);
    return { id, ok: false, error: { kind: sandboxError.kind, functionName: sandboxError.functionName, message, value: sandboxError.value } };
  };
  const loading = QuickJsSandbox.create({ javascript: data.javascript, sdkSource: data.sdkSource, limits: data.limits, wasmModule: data.wasmModule });
  loading.catch(() => undefined);
  port.on("message", (request: SandboxWorkerRequest) => {
    loading.then(
      (sandbox) => {
        try {
          port.postMessage({ id: request.id, ok: true, resultJson: sandbox.call(request.method, request.argumentsJson, request.functionName) } satisfies SandboxWorkerResponse);
        } catch (error) {
          port.postMessage(failure(request.id, error, request.functionName));
        }
      },
      (error: unknown) => port.postMessage(failure(request.id, error, "load")),
    );
  });
}
