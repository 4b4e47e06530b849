/** The target environment's tools that a capability module's tools must match: τ²-bench airline or retail. */
import { TAU2_DOMAINS } from "../../envs/tau2/domains.js";
import type { Tau2DomainName } from "../../envs/tau2/domain.js";

/** A target this package can synthesize for. */
export type SynthesisTarget = "tau2-airline" | "tau2-retail";

/** The synthesis targets, by name. */
export const SYNTHESIS_TARGETS: readonly SynthesisTarget[] = ["tau2-airline", "tau2-retail"];

/** A target tool: name, description and JSON Schema of its arguments. */
export interface TargetTool {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** A target name that is not `tau2-airline` or `tau2-retail`. */
export class UnknownSynthesisTargetError extends Error {
  override readonly name = "UnknownSynthesisTargetError";
  constructor(readonly target: string) {
    super(`unknown synthesis target ${JSON.stringify(target)} (expected one of: ${SYNTHESIS_TARGETS.join(", ")})`);
  }
}

/** Checks a target name. */
export function parseSynthesisTarget(name: string): SynthesisTarget {
  if ((SYNTHESIS_TARGETS as readonly string[]).includes(name)) return name as SynthesisTarget;
  throw new UnknownSynthesisTargetError(name);
}

/** The τ² domain behind a target. */
export function targetDomain(target: SynthesisTarget): Tau2DomainName {
  return target === "tau2-airline" ? "airline" : "retail";
}

/** The target's tools as τ²-bench defines them (from the domain's code; no data directory needed). */
export function targetTools(target: SynthesisTarget): TargetTool[] {
  return TAU2_DOMAINS[targetDomain(target)].tools.map((tool) => ({ name: tool.name, description: tool.description, parameters: tool.parameters }));
}
