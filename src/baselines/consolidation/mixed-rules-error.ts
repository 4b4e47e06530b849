import { TraceError } from "../../spec/trace-error.js";

/** Mixture members whose conversation rules differ (one agent loop enforces one set of rules). */
export class MixedRulesError extends TraceError {
  override readonly name = "MixedRulesError";
  constructor(
    readonly member: string,
    readonly rules: unknown,
    readonly expected: unknown,
  ) {
    super(`mixture member ${member} has conversation rules ${JSON.stringify(rules)}, the first member has ${JSON.stringify(expected)}`, { category: "internal" });
  }
}
