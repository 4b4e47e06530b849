/** Checks a module's verdict before the host uses it: reward a finite number in [0, 1], success boolean, numeric breakdown. */
import type { Verdict } from "./capability-module.js";
import { TraceError } from "../../spec/trace-error.js";

/** A verifier returned something that is not a well-formed `Verdict`. */
export class MalformedVerdictError extends TraceError {
  override readonly name = "MalformedVerdictError";
  constructor(
    readonly verdict: unknown,
    readonly problem: string,
  ) {
    super(`malformed verdict (${problem}): ${JSON.stringify(verdict)}`, { category: "sandbox" });
  }
}

/** Returns the verdict unchanged when well-formed; throws `MalformedVerdictError` otherwise. */
export function checkVerdict(verdict: unknown): Verdict {
  if (verdict === null || typeof verdict !== "object") throw new MalformedVerdictError(verdict, "not an object");
  const { reward, success, breakdown } = verdict as Record<string, unknown>;
  if (typeof reward !== "number" || !Number.isFinite(reward) || reward < 0 || reward > 1) throw new MalformedVerdictError(verdict, "reward must be a number in [0, 1]");
  if (typeof success !== "boolean") throw new MalformedVerdictError(verdict, "success must be a boolean");
  if (breakdown === null || typeof breakdown !== "object" || Array.isArray(breakdown)) throw new MalformedVerdictError(verdict, "breakdown must be an object");
  for (const value of Object.values(breakdown)) {
    if (typeof value !== "number" || !Number.isFinite(value)) throw new MalformedVerdictError(verdict, "breakdown values must be finite numbers");
  }
  return verdict as Verdict;
}
