/** One module in one fresh QuickJS (WebAssembly) instance: load it, call it with JSON, map every failure to a kind. */
import releaseSyncVariant from "@jitl/quickjs-wasmfile-release-sync";
import { newQuickJSWASMModuleFromVariant, shouldInterruptAfterDeadline } from "quickjs-emscripten-core";
import type { QuickJSContext, QuickJSHandle, QuickJSSyncVariant } from "quickjs-emscripten-core";
import { SandboxError } from "./sandbox-error.js";
import type { SandboxFailureKind } from "./sandbox-error.js";
import { sandboxPrelude } from "./sandbox-prelude.js";

// Under NodeNext the package's CommonJS typings describe its namespace; the ESM entry Node loads exports the variant.
const variant = releaseSyncVariant as unknown as QuickJSSyncVariant;

/** Resource limits of one sandbox. */
export interface SandboxLimits {
  /** QuickJS heap limit in bytes (default 64 MiB). */
  memoryBytes: number;
  /** QuickJS stack limit in bytes (default 256 KiB, below the WebAssembly stack so overflow is caught inside). */
  stackBytes: number;
  /** CPU time each call (and loading) may take, in milliseconds (default 1000), enforced by QuickJS's interrupt handler. */
  callMilliseconds: number;
}

/** The defaults: 64 MiB, 256 KiB of stack, 1 s per call. */
export const defaultSandboxLimits: SandboxLimits = { memoryBytes: 64 * 1024 * 1024, stackBytes: 256 * 1024, callMilliseconds: 1000 };

/** The three module functions the host calls, plus `metadata` (the static fields and the functions' types). */
export type SandboxMethod = "metadata" | "generate" | "runTool" | "verify";

/**
 * A module evaluated in its own WebAssembly instance of QuickJS (its own linear memory: nothing is shared with the
 * host or with another module), with no host functions exposed at all — no file system, network, process, timers or
 * `require`; only ECMAScript built-ins, the injected SDK and the dispatcher. Everything crosses as JSON strings.
 * Synchronous: a call blocks its thread, so the host runs it in a worker (see `sandboxed-module-runner.ts`).
 */
export class QuickJsSandbox {
  private constructor(
    private readonly context: QuickJSContext,
    private readonly dispatch: QuickJSHandle,
    private readonly limits: SandboxLimits,
    private readonly setDeadline: (milliseconds: number) => void,
  ) {}

  /** Loads a module's JavaScript (CommonJS body, see `transpileModuleSource`) with the SDK factory's source text. */
  static async create(options: { javascript: string; sdkSource: string; limits?: Partial<SandboxLimits> }): Promise<QuickJsSandbox> {
    const limits = { ...defaultSandboxLimits, ...options.limits };
    const quickJs = await newQuickJSWASMModuleFromVariant(variant);
    const runtime = quickJs.newRuntime();
    runtime.setMemoryLimit(limits.memoryBytes);
    runtime.setMaxStackSize(limits.stackBytes);
    const setDeadline = (milliseconds: number): void => runtime.setInterruptHandler(shouldInterruptAfterDeadline(Date.now() + milliseconds));
    const context = runtime.newContext();
    setDeadline(limits.callMilliseconds);
    const prelude = unwrap(context, context.evalCode(`(${sandboxPrelude})(${options.sdkSource})`, "prelude.js"), "load");
    const body = unwrap(context, context.evalCode(`(function (exports) {\n${options.javascript}\n})`, "module.js"), "load");
    const dispatch = unwrap(context, context.callFunction(prelude, context.undefined, body), "load");
    prelude.dispose();
    body.dispose();
    return new QuickJsSandbox(context, dispatch, limits, setDeadline);
  }

  /** Calls a module function with JSON arguments; returns its result as JSON text or throws a `SandboxError`. */
  call(method: SandboxMethod, argumentsJson: string, functionName: string = method): string {
    this.setDeadline(this.limits.callMilliseconds);
    const methodHandle = this.context.newString(method);
    const argumentsHandle = this.context.newString(argumentsJson);
    const result = unwrap(this.context, this.context.callFunction(this.dispatch, this.context.undefined, methodHandle, argumentsHandle), functionName);
    methodHandle.dispose();
    argumentsHandle.dispose();
    const type = this.context.typeof(result);
    const text = type === "string" ? this.context.getString(result) : undefined;
    result.dispose();
    if (text === undefined) throw new SandboxError("crash", functionName, `dispatcher returned a ${type}`);
    return text;
  }
}

function unwrap(context: QuickJSContext, result: ReturnType<QuickJSContext["evalCode"]>, functionName: string): QuickJSHandle {
  if (result.error === undefined) return result.value;
  let dumped: unknown;
  try {
    dumped = context.dump(result.error);
  } catch {
    dumped = { name: "InternalError", message: "unreadable error (the sandbox is out of memory)" };
  }
  result.error.dispose();
  throw toSandboxError(dumped, functionName);
}

/** Maps an error value thrown inside QuickJS (as `context.dump` gives it) to a `SandboxError` of the right kind. */
export function toSandboxError(thrown: unknown, functionName: string): SandboxError {
  const record = thrown !== null && typeof thrown === "object" ? (thrown as { name?: unknown; message?: unknown; stack?: unknown }) : {};
  const name = typeof record.name === "string" ? record.name : "thrown value";
  const message = typeof record.message === "string" ? record.message : safeText(thrown);
  const stack = typeof record.stack === "string" ? record.stack.trim() : "";
  const kind = classify(name, message);
  const where = stack === "" ? "" : ` (${stack.split("\n")[0]?.trim()})`;
  const explanation =
    kind === "timeout" ? "exceeded its CPU-time limit (interrupted)" : kind === "memory" ? `exceeded its ${message === "stack overflow" ? "stack" : "memory"} limit (${message})` : `${name}: ${message}`;
  return new SandboxError(kind, functionName, `${explanation}${where}`, { name, message, stack });
}

function classify(name: string, message: string): SandboxFailureKind {
  if (name === "InternalError" && message === "interrupted") return "timeout";
  if (name === "InternalError" && (message === "out of memory" || message === "stack overflow")) return "memory";
  if (name === "RangeError" && /Maximum call stack|invalid array (buffer )?length/i.test(message)) return "memory";
  if (name === "NondeterminismError") return "nondeterminism";
  if (name === "NonJsonError" || (name === "TypeError" && /circular/i.test(message))) return "non-json";
  if (name === "ShapeError") return "shape";
  if (name === "SyntaxError") return "syntax";
  return "throw";
}

function safeText(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
