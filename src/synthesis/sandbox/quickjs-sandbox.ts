/** One module in one fresh QuickJS (WebAssembly) instance: load it, call it with JSON, map every failure to a kind. */
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import releaseSyncVariant from "@jitl/quickjs-wasmfile-release-sync";
import { newQuickJSWASMModuleFromVariant, newVariant } from "quickjs-emscripten-core";
import type { QuickJSContext, QuickJSHandle, QuickJSRuntime, QuickJSSyncVariant } from "quickjs-emscripten-core";
import { jsonNestingDepth } from "./json-nesting-depth.js";
import { SandboxError } from "./sandbox-error.js";
import type { SandboxFailureKind } from "./sandbox-error.js";
import { sandboxPrelude } from "./sandbox-prelude.js";
import { threadCpuMilliseconds } from "./thread-cpu-clock.js";

// Under NodeNext the package's CommonJS typings describe its namespace; the ESM entry Node loads exports the variant.
const variant = releaseSyncVariant as unknown as QuickJSSyncVariant;

/** The parts of the WebAssembly JavaScript API used here (the project's `lib` has no DOM types, `@types/node` 20 none). */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(delta: number): number;
}
/** A compiled WebAssembly module (opaque here; it can be posted to a worker thread). */
export type WasmModule = object;
const webAssembly = (globalThis as unknown as { WebAssembly: { Memory: new (descriptor: { initial: number; maximum: number }) => WasmMemory; compile(bytes: Uint8Array): Promise<WasmModule> } }).WebAssembly;

const mebibyte = 1024 * 1024;
const wasmPageBytes = 64 * 1024;
/** The size the QuickJS build's WebAssembly memory starts at (its static data, C stack and first heap): the least cap. */
const minimumMemoryBytes = 16 * mebibyte;
/** The most a 32-bit WebAssembly memory of this build may declare (32768 pages). */
const maximumMemoryBytes = 2048 * mebibyte;
/**
 * A call first reads the thread's CPU clock (a few microseconds) when it has run this long; until then its wall-clock
 * time is counted as CPU time (an overestimate), so short calls never pay for the clock. Loading reads it at once.
 */
const cpuClockAfterMilliseconds = 10;

/** Resource limits of one sandbox. */
export interface SandboxLimits {
  /**
   * The most memory the module's QuickJS instance may ever hold, in bytes (default 64 MiB; 16 MiB to 2 GiB): the size
   * of its whole WebAssembly memory — QuickJS's heap (objects, strings, array buffers), its C stack and static data,
   * about 5 MiB of it taken before the module's first object — held for the module's life, across calls. An allocation
   * past it fails inside QuickJS, and the call that made it fails with kind `memory` (even if the module caught the
   * error). QuickJS's own limit (`JS_SetMemoryLimit`) cannot do this in this build: see `create`.
   */
  memoryBytes: number;
  /** QuickJS stack limit in bytes (default 256 KiB, below the WebAssembly stack so overflow is caught inside). */
  stackBytes: number;
  /**
   * CPU time each call (and loading) may use, in milliseconds (default 1000), checked by QuickJS's interrupt handler:
   * the sandbox thread's own CPU time as Linux counts it (`/proc/thread-self/schedstat`), except that a call's first
   * 10 ms, or until QuickJS first polls the handler, are counted at wall-clock time (an overestimate; loading is
   * measured from its start). Where the platform does not report a thread's CPU time this is wall-clock time instead,
   * which is never less than the CPU time the call used.
   */
  callMilliseconds: number;
  /**
   * Wall-clock time each call (and loading) may take, in milliseconds (default 4 × `callMilliseconds`): stops a call
   * that gets too little CPU on an overloaded machine. The host's hard stop comes a grace period after it.
   */
  callWallMilliseconds: number;
  /** The longest JSON text one call may return, in characters (default 8 Mi): a longer result fails with kind `shape`. */
  resultCharacters: number;
  /** The deepest nesting of arrays and objects a result may have (default 64): a deeper result fails with kind `shape`. */
  resultDepth: number;
}

/** The defaults: 64 MiB of memory, 256 KiB of stack, 1 s of CPU (4 s of wall-clock time) per call, 8 Mi characters, depth 64. */
export const defaultSandboxLimits: SandboxLimits = {
  memoryBytes: 64 * mebibyte,
  stackBytes: 256 * 1024,
  callMilliseconds: 1000,
  callWallMilliseconds: 4000,
  resultCharacters: 8 * mebibyte,
  resultDepth: 64,
};

/** Fills in the defaults (`callWallMilliseconds` follows `callMilliseconds`) and refuses limits the sandbox cannot keep. */
export function resolveSandboxLimits(limits: Partial<SandboxLimits> = {}): SandboxLimits {
  const callMilliseconds = limits.callMilliseconds ?? defaultSandboxLimits.callMilliseconds;
  const resolved: SandboxLimits = { ...defaultSandboxLimits, ...limits, callMilliseconds, callWallMilliseconds: limits.callWallMilliseconds ?? 4 * callMilliseconds };
  if (!(resolved.memoryBytes >= minimumMemoryBytes && resolved.memoryBytes <= maximumMemoryBytes)) {
    throw new RangeError(`memoryBytes must be between ${minimumMemoryBytes} and ${maximumMemoryBytes}, got ${resolved.memoryBytes}`);
  }
  if (!(resolved.callMilliseconds > 0 && resolved.callWallMilliseconds >= resolved.callMilliseconds)) {
    throw new RangeError(`callMilliseconds must be positive and callWallMilliseconds at least as long, got ${resolved.callMilliseconds} and ${resolved.callWallMilliseconds}`);
  }
  return resolved;
}

/** The three module functions the host calls, plus `metadata` (the static fields and the functions' types). */
export type SandboxMethod = "metadata" | "generate" | "runTool" | "verify";

let compiledQuickJs: Promise<WasmModule> | undefined;

/** The QuickJS WebAssembly module, compiled once per thread (a compiled module can also be posted to a worker). */
export function compileQuickJs(): Promise<WasmModule> {
  compiledQuickJs ??= readFile(fileURLToPath(import.meta.resolve("@jitl/quickjs-wasmfile-release-sync/wasm"))).then((bytes) => webAssembly.compile(bytes));
  return compiledQuickJs;
}

/**
 * A WebAssembly memory that cannot grow: created at its cap, so Emscripten's allocator asks to grow it only when an
 * allocation does not fit, and every such request — refused — is counted.
 */
class CappedMemory {
  readonly memory: WasmMemory;
  refusedGrowths = 0;

  constructor(readonly bytes: number) {
    const pages = Math.ceil(bytes / wasmPageBytes);
    this.memory = new webAssembly.Memory({ initial: pages, maximum: pages });
    const grow = this.memory.grow.bind(this.memory);
    Object.defineProperty(this.memory, "grow", {
      value: (delta: number): number => {
        try {
          return grow(delta);
        } catch (error) {
          this.refusedGrowths++;
          throw error;
        }
      },
    });
  }
}

/** How long the running call has taken, and why the interrupt handler stopped it. */
interface CallClock {
  startedAt: number;
  /** The thread's CPU clock and the wall clock when it was first read (`null`: the platform does not report it). */
  cpuBaseline?: { cpuMilliseconds: number; at: number } | null;
  /** The interrupt handler does nothing before this instant (neither limit can be reached sooner). */
  nextCheckAt: number;
  /** What the handler measured when it stopped the call; `wallCountedAsCpu`: the part of `cpuMilliseconds` that is wall-clock time. */
  interruption?: { cpuMilliseconds: number; wallMilliseconds: number; wallCountedAsCpu: number; threadClock: boolean };
}

/**
 * A module evaluated in its own WebAssembly instance of QuickJS (its own linear memory, capped at `memoryBytes`:
 * nothing is shared with the host or with another module), with no host functions exposed at all — no file system,
 * network, process, timers or `require`; only ECMAScript built-ins, the injected SDK and the dispatcher. Everything
 * crosses as JSON strings. Synchronous: a call blocks its thread, so the host runs it in a worker (see
 * `sandboxed-module-runner.ts`). After a `timeout`, `memory` or `crash` the instance refuses every later call (kind
 * `crash`): its heap may be in any state, so the host starts a fresh one.
 */
export class QuickJsSandbox {
  private dispatch: QuickJSHandle | undefined;
  private clock: CallClock | undefined;
  private unusable: SandboxError | undefined;

  private constructor(
    private readonly runtime: QuickJSRuntime,
    private readonly context: QuickJSContext,
    private readonly memory: CappedMemory,
    readonly limits: SandboxLimits,
  ) {
    runtime.setInterruptHandler(() => this.shouldInterrupt());
  }

  /**
   * Loads a module's JavaScript (CommonJS body, see `transpileModuleSource`) with the SDK factory's source text, in a
   * new QuickJS instance (from `wasmModule` when given, else compiled once per thread).
   */
  static async create(options: { javascript: string; sdkSource: string; limits?: Partial<SandboxLimits>; wasmModule?: WasmModule }): Promise<QuickJsSandbox> {
    const limits = resolveSandboxLimits(options.limits);
    const memory = new CappedMemory(limits.memoryBytes);
    const wasmModule = options.wasmModule ?? (await compileQuickJs());
    // Emscripten's own prints (an abort's text) stay quiet: the abort reaches the caller as an error with that text.
    const quiet = (): void => undefined;
    const emscriptenModule = { print: quiet, printErr: quiet } as NonNullable<Parameters<typeof newVariant>[1]["emscriptenModule"]>;
    const quickJs = await newQuickJSWASMModuleFromVariant(newVariant(variant, { wasmModule, wasmMemory: memory.memory, emscriptenModule }));
    const runtime = quickJs.newRuntime();
    // QuickJS's own accounting cannot see the heap in this build (malloc_usable_size is unavailable under Emscripten,
    // so it counts 8 bytes a block): it only refuses a single allocation past the limit. The capped memory does the rest.
    runtime.setMemoryLimit(limits.memoryBytes);
    runtime.setMaxStackSize(limits.stackBytes);
    const sandbox = new QuickJsSandbox(runtime, runtime.newContext(), memory, limits);
    sandbox.load(options.javascript, options.sdkSource);
    return sandbox;
  }

  /** Calls a module function with JSON arguments; returns its result as JSON text or throws a `SandboxError`. */
  call(method: SandboxMethod, argumentsJson: string, functionName: string = method): string {
    const text = this.guard(functionName, false, () => {
      const dispatch = this.dispatch;
      if (dispatch === undefined) throw new SandboxError("crash", functionName, "the module is not loaded");
      const methodHandle = this.context.newString(method);
      const argumentsHandle = this.context.newString(argumentsJson);
      const result = this.context.callFunction(dispatch, this.context.undefined, methodHandle, argumentsHandle);
      methodHandle.dispose();
      argumentsHandle.dispose();
      const value = this.unwrap(result, functionName);
      try {
        const type = this.context.typeof(value);
        if (type !== "string") throw new SandboxError("crash", functionName, `dispatcher returned a ${type}`, type);
        return this.context.getString(value);
      } finally {
        value.dispose();
      }
    });
    const limit = this.limits.resultDepth;
    if (text.length > 2 * limit) {
      const depth = jsonNestingDepth(text, limit);
      if (depth > limit) throw new SandboxError("shape", functionName, `the result nests arrays and objects deeper than ${limit} levels (resultDepth)`, { depthAtLeast: depth, limit });
    }
    return text;
  }

  /** Bytes of WebAssembly memory the instance holds: always `limits.memoryBytes` rounded up to 64 KiB pages. */
  get memoryBytes(): number {
    return this.memory.memory.buffer.byteLength;
  }

  /**
   * Frees the QuickJS context and runtime, or after a `timeout`, `memory` or `crash` (a heap in any state) just drops
   * them; either way the WebAssembly memory goes with the instance when it is garbage-collected.
   */
  dispose(): void {
    if (this.unusable === undefined) {
      try {
        this.dispatch?.dispose();
        this.context.dispose();
        this.runtime.dispose();
      } catch {
        // Best effort: QuickJS asserts that nothing the module made is still referenced.
      }
    }
    this.dispatch = undefined;
    this.unusable ??= new SandboxError("crash", "dispose", "the sandbox was disposed");
  }

  private load(javascript: string, sdkSource: string): void {
    this.dispatch = this.guard("load", true, () => {
      const prelude = this.unwrap(this.context.evalCode(`(${sandboxPrelude})(${sdkSource}, ${this.limits.resultCharacters})`, "prelude.js"), "load");
      const body = this.unwrap(this.context.evalCode(`(function (exports) {\n${javascript}\n})`, "module.js"), "load");
      const dispatch = this.unwrap(this.context.callFunction(prelude, this.context.undefined, body), "load");
      prelude.dispose();
      body.dispose();
      return dispatch;
    });
  }

  /**
   * Runs one call into QuickJS under the limits: starts the call's clock, turns anything the host sees (a WebAssembly
   * trap, the thread's stack overflowing in a recursive built-in) into a `SandboxError`, reports any allocation that
   * did not fit as `memory`, and retires the instance after a `timeout`, `memory` or `crash`.
   */
  private guard<T>(functionName: string, readCpuClockNow: boolean, body: () => T): T {
    if (this.unusable !== undefined) {
      throw new SandboxError("crash", functionName, `the sandbox cannot be used after its earlier failure (${this.unusable.message})`, this.unusable.message);
    }
    const startedAt = performance.now();
    this.clock = { startedAt, nextCheckAt: startedAt + this.limits.callMilliseconds };
    if (readCpuClockNow) this.clock.cpuBaseline = readCpuBaseline(startedAt);
    const refusedBefore = this.memory.refusedGrowths;
    let failure: SandboxError;
    try {
      const result = body();
      if (this.memory.refusedGrowths === refusedBefore) return result;
      failure = this.memoryError(functionName, "an allocation failed and the module went on (it caught QuickJS's out-of-memory error)");
    } catch (error) {
      failure = this.hostFailure(error, functionName);
      // A failure after an allocation did not fit (QuickJS's error object unreadable, a trap in the glue) is the memory limit.
      if (this.memory.refusedGrowths > refusedBefore && failure.kind !== "memory") failure = this.memoryError(functionName, `then ${failure.message}`);
    } finally {
      this.clock = undefined;
    }
    if (failure.kind === "timeout" || failure.kind === "memory" || failure.kind === "crash") this.unusable = failure;
    throw failure;
  }

  /** QuickJS's interrupt handler: true stops the running code (an uncatchable `InternalError: interrupted`). */
  private shouldInterrupt(): boolean {
    const clock = this.clock;
    if (clock === undefined) return false;
    if (clock.interruption !== undefined) return true;
    const now = performance.now();
    if (clock.cpuBaseline === undefined && now - clock.startedAt >= cpuClockAfterMilliseconds) clock.cpuBaseline = readCpuBaseline(now);
    if (now < clock.nextCheckAt) return false;
    const wallMilliseconds = now - clock.startedAt;
    // Wall-clock time until the CPU clock was first read, the thread's CPU time since: never less than the CPU used.
    let wallCountedAsCpu = wallMilliseconds;
    let cpuMilliseconds = wallMilliseconds;
    let threadClock = false;
    const baseline = clock.cpuBaseline;
    const cpuNow = baseline ? threadCpuMilliseconds() : undefined;
    if (baseline && cpuNow !== undefined) {
      wallCountedAsCpu = baseline.at - clock.startedAt;
      cpuMilliseconds = wallCountedAsCpu + (cpuNow - baseline.cpuMilliseconds);
      threadClock = true;
    }
    if (cpuMilliseconds >= this.limits.callMilliseconds || wallMilliseconds >= this.limits.callWallMilliseconds) {
      clock.interruption = { cpuMilliseconds, wallMilliseconds, wallCountedAsCpu, threadClock };
      return true;
    }
    clock.nextCheckAt = now + Math.min(this.limits.callMilliseconds - cpuMilliseconds, this.limits.callWallMilliseconds - wallMilliseconds);
    return false;
  }

  private unwrap(result: ReturnType<QuickJSContext["evalCode"]>, functionName: string): QuickJSHandle {
    if (result.error === undefined) return result.value;
    // Whatever the module threw (or made its error look like), a call the interrupt handler stopped is a timeout.
    const interruption = this.clock?.interruption;
    if (interruption !== undefined) {
      result.error.dispose();
      throw this.timeoutError(functionName, interruption);
    }
    let thrown: ReturnType<QuickJsSandbox["readThrown"]>;
    try {
      thrown = this.readThrown(result.error);
    } finally {
      result.error.dispose();
    }
    // Reading the error ran module code (a getter), which the interrupt handler may have stopped.
    const lateInterruption = this.clock?.interruption;
    if (lateInterruption !== undefined) throw this.timeoutError(functionName, lateInterruption);
    if ("value" in thrown) throw new SandboxError("throw", functionName, `thrown value: ${safeText(thrown.value)}`, thrown.value);
    const error = toSandboxError(thrown.error, functionName);
    const { message } = error.value as { message: string };
    // Only the interrupt handler interrupts: an "interrupted" error the module made up is an ordinary throw.
    if (error.kind === "timeout") throw new SandboxError("throw", functionName, `the module threw an imitation of QuickJS's interrupt (${message})`, error.value);
    if (error.kind === "memory" && message === "out of memory") throw this.memoryError(functionName, "QuickJS: out of memory");
    if (error.kind === "memory" && message === "stack overflow") {
      throw new SandboxError("memory", functionName, `exceeded its stack limit of ${this.limits.stackBytes / 1024} KiB (stack overflow)`, error.value);
    }
    throw error;
  }

  /**
   * What the module threw: an error's `name`, `message` and `stack`, read as properties (not through
   * `JSON.stringify`, which would run a poisoned `toJSON`), or any other value dumped (then it is an ordinary throw,
   * whatever it looks like). A failure here (the stack or the memory exhausted) is reported as such by `guard`.
   */
  private readThrown(handle: QuickJSHandle): { error: { name?: string; message?: string; stack?: string } } | { value: unknown } {
    const field = (key: string): string | undefined => {
      const value = this.context.getProp(handle, key);
      try {
        return this.context.typeof(value) === "string" ? this.context.getString(value) : undefined;
      } finally {
        value.dispose();
      }
    };
    const type = this.context.typeof(handle);
    if (type === "object" && !this.context.sameValue(handle, this.context.null)) {
      const fields = { name: field("name"), message: field("message"), stack: field("stack") };
      if (fields.name !== undefined || fields.message !== undefined) return { error: fields };
    }
    return { value: this.context.dump(handle) };
  }

  private timeoutError(functionName: string, interruption: NonNullable<CallClock["interruption"]>): SandboxError {
    const { callMilliseconds, callWallMilliseconds } = this.limits;
    const cpu = Math.round(interruption.cpuMilliseconds);
    const wall = Math.round(interruption.wallMilliseconds);
    const prefix = Math.round(interruption.wallCountedAsCpu);
    const value = { cpuMilliseconds: cpu, wallMilliseconds: wall, wallCountedAsCpuMilliseconds: prefix, callMilliseconds, callWallMilliseconds, threadClock: interruption.threadClock };
    if (interruption.cpuMilliseconds < callMilliseconds) {
      return new SandboxError("timeout", functionName, `exceeded its wall-clock limit: ${wall} ms (limit ${callWallMilliseconds} ms) with ${cpu} ms of CPU time — the machine is overloaded (interrupted)`, value);
    }
    const cpuText = !interruption.threadClock
      ? `${cpu} ms of wall-clock time (this platform does not report a thread's CPU time)`
      : prefix > 0
        ? `${cpu} ms of CPU time (the thread's, its first ${prefix} ms counted at wall-clock time)`
        : `${cpu} ms of the thread's CPU time`;
    return new SandboxError("timeout", functionName, `exceeded its CPU-time limit: ${cpuText} (limit ${callMilliseconds} ms) in ${wall} ms (interrupted)`, value);
  }

  private memoryError(functionName: string, detail: string): SandboxError {
    const limit = this.limits.memoryBytes;
    return new SandboxError(
      "memory",
      functionName,
      `exceeded its memory limit: an allocation did not fit in the ${formatMebibytes(limit)} MiB the module may hold (its QuickJS instance's whole WebAssembly memory, kept across calls); ${detail}`,
      { memoryBytes: limit, refusedGrowths: this.memory.refusedGrowths },
    );
  }

  /** A failure seen outside QuickJS's own error handling (a `SandboxError` raised here passes through). */
  private hostFailure(error: unknown, functionName: string): SandboxError {
    if (SandboxError.isInstance(error)) return error;
    const message = describe(error);
    if (error instanceof RangeError && /call stack/i.test(message)) {
      return new SandboxError("memory", functionName, `exhausted the sandbox thread's stack in a recursive built-in, e.g. JSON.stringify of a deeply nested value (${message})`, message);
    }
    return new SandboxError("crash", functionName, `the QuickJS instance failed: ${message}`, message);
  }
}

function readCpuBaseline(at: number): CallClock["cpuBaseline"] {
  const cpuMilliseconds = threadCpuMilliseconds();
  return cpuMilliseconds === undefined ? null : { cpuMilliseconds, at };
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

function formatMebibytes(bytes: number): string {
  return (bytes / mebibyte).toFixed(bytes % mebibyte === 0 ? 0 : 1);
}

/** Maps an error thrown inside QuickJS (its `name`, `message` and `stack`) to a `SandboxError` of the right kind. */
function toSandboxError(thrown: unknown, functionName: string): SandboxError {
  const record = thrown !== null && typeof thrown === "object" ? (thrown as { name?: unknown; message?: unknown; stack?: unknown }) : {};
  const name = typeof record.name === "string" ? record.name : "thrown value";
  const message = typeof record.message === "string" ? record.message : safeText(thrown);
  const stack = typeof record.stack === "string" ? record.stack.trim() : "";
  const kind = classify(name, message);
  const where = stack === "" ? "" : ` (${stack.split("\n")[0]?.trim()})`;
  const explanation =
    kind === "timeout"
      ? "exceeded its time limit (interrupted)"
      : kind === "memory"
        ? `exceeded its ${message === "stack overflow" || /call stack/i.test(message) ? "stack" : message === "string too long" ? "string length" : "memory"} limit (${message})`
        : name === "ResultLimitError"
          ? message
          : `${name}: ${message}`;
  return new SandboxError(kind, functionName, `${explanation}${where}`, { name, message, stack });
}

function classify(name: string, message: string): SandboxFailureKind {
  if (name === "InternalError" && message === "interrupted") return "timeout";
  if (name === "InternalError" && (message === "out of memory" || message === "stack overflow" || message === "string too long")) return "memory";
  if (name === "RangeError" && /Maximum call stack|invalid array (buffer )?length/i.test(message)) return "memory";
  if (name === "NondeterminismError") return "nondeterminism";
  if (name === "NonJsonError" || (name === "TypeError" && /circular/i.test(message))) return "non-json";
  if (name === "ShapeError" || name === "ResultLimitError") return "shape";
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
