/** A capability module that failed in the sandbox: what went wrong (`kind`), in which function, and the report. */
import { TraceError } from "../../spec/trace-error.js";

/** Every way an untrusted module can fail; each is contained and reported, the host keeps running. */
export type SandboxFailureKind =
  | "syntax" // the TypeScript does not parse
  | "import" // the module imports something (it must be self-contained)
  | "shape" // a missing or ill-shaped export, a malformed return value (e.g. an instance without `solution`), or one over the result limits
  | "throw" // the module threw
  | "timeout" // a call ran past its CPU-time or wall-clock limit (or the host's hard stop)
  | "memory" // the module ran out of its memory limit (its QuickJS instance's whole memory) or its stack
  | "non-json" // a return value that is not JSON (undefined, a function, NaN, a cycle)
  | "nondeterminism" // the module called Math.random, Date.now, new Date(), WeakRef or FinalizationRegistry
  | "crash"; // the sandbox itself died (the WebAssembly instance aborted or its worker exited)

/** A capability module's failure in the sandbox; `value` is the offending value (diagnostics, thrown error, issues). */
export class SandboxError extends TraceError {
  override readonly name = "SandboxError";

  constructor(
    readonly kind: SandboxFailureKind,
    /** The module function that failed (`load`, `generate`, `runTool`, `verify`). */
    readonly functionName: string,
    message: string,
    readonly value?: unknown,
  ) {
    super(`${functionName}: ${kind}: ${message}`, { category: "sandbox" });
  }

  static override isInstance(value: unknown): value is SandboxError {
    return value instanceof Error && value.name === "SandboxError";
  }
}
